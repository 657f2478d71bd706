"""EOS outputs of a demo leaf: S0 2.5.1's running-config for every host port, S3's show priority-flow-control
and counter tables, NAPALM's `show interfaces | json` capture as the per-interface template."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from pytest_gpufabric.switches.snapshots import snapshot_item
from tools.demo_cluster.outputs import Outputs
from tools.demo_cluster.switches import (
    DETERMINISTIC_ECN,
    DISCARDS,
    LINK_DOWN,
    MTU_1500,
    PFC_PRIORITY_4,
    WATCHDOG_ERRDISABLE,
    DemoSwitch,
)

OUTPUTS = Path(__file__).resolve().parents[3] / "fixtures" / "outputs"
PROFILE = "QOS_ROCE_DCQCN"
# S3 "ECN Configuration": the deterministic threshold example (DCQCN-D)
DETERMINISTIC = "random-detect ecn minimum-threshold 256 kbytes maximum-threshold 256 kbytes max-mark-probability 100"
WATCHDOG_CONFIG = (  # S3 "PFC Watchdog" configuration, with the values of S3's show priority-flow-control
    "priority-flow-control pause watchdog default timeout 1.0\n"
    "priority-flow-control pause watchdog default recovery-time 2.0\n"
    "priority-flow-control pause watchdog default polling-interval 0.2\n"
    "priority-flow-control pause watchdog action {action}\n"
)


def _s0_config() -> tuple[str, str]:
    """S0 2.5.1: the global part (qos maps and profile) and the Ethernet1/1 block."""
    text = (OUTPUTS / "eos-running-config" / "running-config-s0-2.5.1.txt").read_text(encoding="utf-8")
    head, _, rest = text.partition("interface Ethernet1/1\n")
    block = "interface Ethernet1/1\n" + rest.split("!\n", 1)[0] + "!\n"
    return head, block


def _profile_variant(head: str, name: str, old: str, new: str) -> str:
    profile = head[head.index(f"qos profile {PROFILE}"):].split("\n!\n", 1)[0] + "\n!\n"
    return profile.replace(f"qos profile {PROFILE}", f"qos profile {name}").replace(old, new)


def running_config(switch: DemoSwitch, ports: list[tuple[str, tuple[str, int]]]) -> str:
    head, block = _s0_config()
    ecn = next(line.strip() for line in head.splitlines() if "random-detect ecn" in line)
    text = head + _profile_variant(head, "QOS_ROCE_PFC4", "priority 3 no-drop", "priority 4 no-drop")
    text += _profile_variant(head, "QOS_ROCE_DCQCN_D", ecn, DETERMINISTIC) + "\n"
    text += WATCHDOG_CONFIG.format(action="errdisable" if switch.name in WATCHDOG_ERRDISABLE else "drop") + "\n"
    for port, (node, rail) in ports:
        profile = "QOS_ROCE_PFC4" if (node, rail) in PFC_PRIORITY_4 else "QOS_ROCE_DCQCN_D" if (node, rail) in DETERMINISTIC_ECN else PROFILE
        address = f"1.1.{101 + rail}.{2 * int(node[-2:])}/31"
        port_block = block.replace("Ethernet1/1", port).replace(PROFILE, profile).replace("1.1.101.14/31", address)
        if (node, rail) in MTU_1500:
            port_block = port_block.replace("mtu 9200", "mtu 1500")
        text += port_block + "\n"
    return text


def _pfc_show(switch: DemoSwitch) -> str:
    """S3's show priority-flow-control lines (without the prompt), the action as configured."""
    lines = (OUTPUTS / "eos-pfc-watchdog" / "s3-show-priority-flow-control-interfaces.txt").read_text(encoding="utf-8").splitlines()[1:]
    text = "\n".join(lines) + "\n"
    return text.replace("action is drop", "action is errdisable") if switch.name in WATCHDOG_ERRDISABLE else text


def _interfaces(ports: list[tuple[str, tuple[str, int]]], discards: dict[str, int]) -> str:
    """NAPALM's `show interfaces | json` capture, its Ethernet1 entry repeated for every host port."""
    sample = json.loads((OUTPUTS / "eos-interfaces-json" / "napalm-show-interfaces.json").read_text(encoding="utf-8"))
    template = sample["interfaces"]["Ethernet1"]
    interfaces = {"Management1": sample["interfaces"]["Management1"]}
    for port, key in ports:
        entry = copy.deepcopy(template)
        down = key in LINK_DOWN
        entry.update(name=port, mtu=1500 if key in MTU_1500 else 9200, bandwidth=400_000_000_000, forwardingModel="routed",
                     interfaceStatus="notconnect" if down else "connected", lineProtocolStatus="down" if down else "up")
        entry["interfaceCounters"]["inDiscards"] = discards.get(port, 0)
        interfaces[port] = entry
    return json.dumps({"interfaces": interfaces}, indent=4) + "\n"


def _pfc_counters(ports: list[tuple[str, tuple[str, int]]], frames: int) -> str:
    """S3's `show priority-flow-control counters` table."""
    rows = "".join(f"{'Et' + port[len('Ethernet'):]:<12}{frames:>10}{frames // 2:>10}\n" for port, _ in ports)
    return f"{'Port':<12}{'RxPfc':>10}{'TxPfc':>10}\n" + rows


def build(switch: DemoSwitch, ports: list[tuple[str, tuple[str, int]]]) -> dict[str | None, Outputs]:
    """Outputs by recording item (None: any item); SW-007's snapshots have their own before/after episodes."""
    after_discards = {port: 12 for port, key in ports if key in DISCARDS}
    base = {
        "show running-config": (running_config(switch, ports), 0),
        "show interfaces | json": (_interfaces(ports, {}), 0),
        "show priority-flow-control": (_pfc_show(switch), 0),
    }
    return {
        None: base,
        snapshot_item("before"): {"show interfaces | json": (_interfaces(ports, {}), 0),
                                  "show priority-flow-control counters": (_pfc_counters(ports, 0), 0)},
        snapshot_item("after"): {"show interfaces | json": (_interfaces(ports, after_discards), 0),
                                 "show priority-flow-control counters": (_pfc_counters(ports, 1480), 0)},
    }
