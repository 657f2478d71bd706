"""Write recordings/demo: the demo inventory (site.yaml) and the recording of every command's output."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import yaml

from pytest_gpufabric.recording import RecordingStore, Scrubber, create_recording
from pytest_gpufabric.transport.base import CommandResult
from tools.demo_cluster.outputs import all_builders
from tools.demo_cluster.switches import SWITCHES, cabling, host_ports
from tools.demo_cluster.switches import eos, junos, sonic
from tools.demo_cluster.switches.neighbors import neighbor_outputs
from tools.demo_cluster.topology import NODES, DemoNode, DemoSlot

DESCRIPTION = (
    "SYNTHESIZED demo: a 4-node AMD Instinct MI300X + Broadcom Thor2 cluster, 2 VMware guests on HGX H100 and 4 leaf switches (EOS, SONiC, Junos) whose outputs are built from the "
    "sample outputs of the vendor documents, with injected faults. Not a capture of real hardware. "
    "Regenerate with: python -m tools.demo_cluster"
)


VMWARE_NODE = {
    "profile": "h100-thor2-vmware",
    "platform": {"gpu_vendor": "nvidia", "gpu_model": "H100", "nic_vendor": "broadcom", "deployment": "vmware",
                 "gpu_link": "nvswitch"},  # HGX H100: eight GPUs behind NVSwitch (S1)
}


def inventory(nodes: tuple[DemoNode, ...]) -> dict[str, object]:
    """The demo's site.yaml as data (S0 2.4.1 addressing: one /24 per rail, gateway .254, table 101+r)."""
    return {
        "version": 1,
        "site": "demo-mi300x-thor2",
        "profile": "mi300x-thor2",
        "defaults": {
            "ssh": {"user": "root", "port": 22},
            "platform": {"gpu_vendor": "amd", "gpu_model": "MI300X", "nic_vendor": "broadcom", "deployment": "baremetal",
                         "gpu_link": "xgmi"},  # MI300X OAM platform: eight GPUs on Infinity Fabric (XGMI) links (S0)
        },
        "nodes": [
            {
                "name": node.name,
                "address": node.address,
                **(VMWARE_NODE if node.vmware else {}),
                **({"esx_host": node.esx_host} if node.vmware else {}),
                "gpus": [{"index": slot.index, "pci": slot.gpu} for slot in node.slots],
                "nics": [
                    {
                        "name": slot.rdma_device,
                        "netdev": slot.netdev,
                        "ipv4": f"{node.nic_ip(slot)}/24",
                        "pci": slot.nic,
                        "speed_gbps": 400,
                        "rail": slot.index,
                        "gpu": slot.index,
                        "gateway": f"192.168.{slot.index + 1}.254",
                        "route_table": 101 + slot.index,
                        **_cabled(node, slot),
                    }
                    for slot in node.slots
                ],
            }
            for node in nodes
        ],
        "switches": [
            {"name": s.name, "os": s.os, "address": s.address, "ssh": {"user": "admin"}} for s in SWITCHES
        ],
    }


def _cabled(node: DemoNode, slot: DemoSlot) -> dict[str, str]:
    found = cabling(node, slot)
    return {"switch": found[0].name, "switch_port": found[1]} if found else {}


def write_demo(target: Path) -> int:
    """Regenerate ``target`` from scratch; returns the number of recorded commands."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    header = "# Demo inventory: SYNTHESIZED from vendor documentation (see README). Regenerate: python -m tools.demo_cluster\n"
    (target / "site.yaml").write_text(header + yaml.safe_dump(inventory(NODES), sort_keys=False), encoding="utf-8")
    create_recording(target, description=DESCRIPTION)
    store = RecordingStore(target, Scrubber(), run_id="demo")
    results = [
        CommandResult(node.name, command, stdout, "", exit_code, 0.01)
        for node in NODES
        for build in all_builders()
        for command, (stdout, exit_code) in build(node).items()
    ]
    store.add_many(results)
    builders = {"arista": eos.build, "sonic": sonic.build, "juniper": junos.build}
    for switch in SWITCHES:
        for item, outputs in builders[switch.os](switch, host_ports(switch, NODES)).items():
            episodes = [CommandResult(switch.name, command, stdout, "", code, 0.01) for command, (stdout, code) in outputs.items()]
            store.add_many(episodes, item)
            results += episodes
    for switch in SWITCHES:  # where each cable ends (CAB-001), read by every NIC's item
        episodes = [CommandResult(switch.name, command, stdout, "", code, 0.01)
                    for command, (stdout, code) in neighbor_outputs(switch).items()]
        store.add_many(episodes)
        results += episodes
    return len(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("recordings/demo"))
    args = parser.parse_args()
    print(f"wrote {write_demo(args.out)} recorded commands to {args.out}")


if __name__ == "__main__":
    main()
