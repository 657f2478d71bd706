"""Switch and port from LLDP (a real lldpctl capture): written when the switch names its OS and management
address, left to the user with a comment otherwise, and a port claimed twice is a finding."""

from __future__ import annotations

from dataclasses import replace
from ipaddress import IPv4Interface
from pathlib import Path

from pytest_gpufabric.discovery.assemble import Declared, assemble_site
from pytest_gpufabric.discovery.probe import FoundNic, FoundPlatform, NodeFacts
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue
from tests.outputs import read_output

NEIGHBORS = parse_lldpctl_keyvalue(read_output("lldpctl-keyvalue", "devhost_sonic_leaf_two_ports.txt")).facts
PLATFORM = FoundPlatform("none", "none", "other", "none")


def node(name: str, host: int, lldp: bool = True) -> NodeFacts:
    nics = tuple(
        FoundNic(name=netdev, netdev=netdev, rdma=False, addresses=(IPv4Interface(f"192.168.{rail + 1}.{host}/24"),),
                 pci=None, path=None, speed_gbps=400, driver=None, neighbor=NEIGHBORS.get(netdev) if lldp else None)
        for rail, netdev in enumerate(("enp29s0np0", "enp67s0np0"))
    )  # fmt: skip
    return NodeFacts(name, f"10.0.0.{host}", PLATFORM, (), nics, lldp_answered=lldp)


def test_lldp_cabling_is_written_and_validates(tmp_path: Path) -> None:
    site = assemble_site([node("node01", 1)], Declared("s", "ssh", SshConfig()), ["lab-linux"])
    assert [(s.name, s.os, s.address) for s in site.switches] == [("leaf01", "sonic", "10.99.0.21")]
    assert [(nic.switch, nic.switch_port) for nic in site.nodes[0].nics] == [("leaf01", "Ethernet8"), ("leaf01", "Ethernet16")]
    path = tmp_path / "site.yaml"
    path.write_text(render_site(site, "t"))
    loaded = load_inventory(path, ["lab-linux"])
    assert loaded.nodes == site.nodes and [s.name for s in loaded.switches] == ["leaf01"]


def test_a_port_reported_by_two_nodes_is_a_finding_and_written_once(tmp_path: Path) -> None:
    site = assemble_site([node("node01", 1), node("node02", 2)], Declared("s", "ssh", SshConfig()), ["lab-linux"])
    assert [nic.switch_port for nic in site.nodes[1].nics] == [None, None]
    assert ("node02", "enp29s0np0 and node01/enp29s0np0 both report leaf01 Ethernet8 (LLDP): one cable is miswired") in {
        (f.node, f.message) for f in site.findings
    }
    path = tmp_path / "site.yaml"
    path.write_text(render_site(site, "t"))
    load_inventory(path, ["lab-linux"])  # still valid: the second claim is left as a comment


def test_without_lldp_or_os_the_cabling_is_left_to_the_user() -> None:
    silent = assemble_site([node("node01", 1, lldp=False)], Declared("s", "ssh", SshConfig()), ["lab-linux"])
    assert silent.switches == () and silent.comments[("node01", "enp29s0np0", "switch")].startswith("LLDP did not answer (lldpctl)")
    anonymous = node("node01", 1)
    anonymous = replace(anonymous, nics=tuple(replace(n, neighbor=replace(n.neighbor, description="leaf")) for n in anonymous.nics))
    site = assemble_site([anonymous], Declared("s", "ssh", SshConfig()), ["lab-linux"])
    assert site.switches == ()
    assert "leaf01 advertises no its OS" not in site.comments[("node01", "enp29s0np0", "switch")]
    assert "advertises no OS" in site.comments[("node01", "enp29s0np0", "switch")]


def test_a_nic_seeing_two_lldp_neighbors_is_left_to_the_user() -> None:
    """Two neighbors on one NIC (LLDP and CDP of a switch, or a device in between): the cable is not guessed."""
    text = read_output("lldpctl-keyvalue", "devhost_sonic_leaf_two_ports.txt")
    doubled = text + "".join(line + "\n" for line in text.splitlines() if line.startswith("lldp.enp29s0np0."))
    seen = parse_lldpctl_keyvalue(doubled).facts
    host = node("node01", 1)
    host = replace(host, nics=tuple(replace(n, neighbor=seen[n.netdev]) for n in host.nics))
    site = assemble_site([host], Declared("s", "ssh", SshConfig()), ["lab-linux"])
    assert [(nic.switch, nic.switch_port) for nic in site.nodes[0].nics] == [(None, None), ("leaf01", "Ethernet16")]
    assert site.comments[("node01", "enp29s0np0", "switch")].startswith("2 LLDP neighbors on enp29s0np0")
