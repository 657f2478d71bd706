"""Discovery degrades per facet: an output that answers but cannot be read costs only its facet. The node is
still written, with the gap commented where the facet would have been; only an unreadable GPU listing (the
node's identity) fails the node.

The nodes are the demo's (recordings/demo), except for the one command each test answers with a real output
that command's parser cannot read: lldpctl's default text format (lldpd/lldpd#73) where the keyvalue format is
asked, and an ``ibv_devinfo`` listing where ``rdma link show`` is asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.discovery.assemble import Declared, DiscoveredSite, assemble_site
from pytest_gpufabric.discovery.probe import AMD_GPUS, LLDP, LLDP_NEIGHBORS, RDMA, RDMA_LINKS, NodeFacts, probe_node
from pytest_gpufabric.discovery.runner import discover_nodes
from pytest_gpufabric.discovery.site_yaml import render_site
from pytest_gpufabric.discovery.targets import targets_from_nodeset
from pytest_gpufabric.expectations import known_profiles
from pytest_gpufabric.inventory import SshConfig, load_inventory
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber
from pytest_gpufabric.transport.base import CommandResult
from tests.outputs import read_output

ROOT = Path(__file__).resolve().parents[3]
PROFILES = known_profiles(ROOT / "thresholds")
LLDP_DEFAULT_FORMAT = read_output("lldpctl-keyvalue", "lldpd_pr73_default_format_not_keyvalue.txt")
NOT_RDMA_LINK = read_output("ibv-devinfo", "softroce_issue46_rxe0.txt")


class DemoAnswering:
    """The demo recording, with some commands answered by the given outputs (exit status 0)."""

    def __init__(self, answers: dict[str, str], nodes: tuple[str, ...] = ("node01",)) -> None:
        self.replay = RecordingTransport(RecordingStore(ROOT / "recordings" / "demo", Scrubber()), RecordMode.NONE)
        self.answers = answers
        self.nodes = nodes

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None) -> CommandResult:
        if node in self.nodes and command in self.answers:
            return CommandResult(node, command, self.answers[command], "", 0, 0.0)
        return self.replay.run(node, command, timeout_s, item=item)

    def close(self) -> None:
        self.replay.close()


def discovered(answers: dict[str, str]) -> tuple[NodeFacts, DiscoveredSite, str]:
    facts = probe_node(DemoAnswering(answers), "node01", "node01")
    site = assemble_site([facts], Declared("demo", "ssh", SshConfig()), PROFILES)
    return facts, site, render_site(site, "test")


def test_unreadable_lldp_leaves_the_lldp_gap_commented_and_the_node_written(tmp_path: Path) -> None:
    facts, site, text = discovered({LLDP_NEIGHBORS: LLDP_DEFAULT_FORMAT})
    gap = facts.gap(LLDP)
    assert gap is not None and gap.command == LLDP_NEIGHBORS and "lldp.<interface>.<field>=<value>" in gap.reason
    node = site.nodes[0]
    assert (len(node.gpus), len(node.nics)) == (8, 8) and all(nic.switch is None for nic in node.nics)
    comment = site.comments[("node01", node.nics[0].name, "switch")]
    assert comment.startswith("LLDP: `lldpctl -f keyvalue` could not be read (") and comment.endswith("fill in switch and switch_port")
    assert f"  #   LLDP: `{LLDP_NEIGHBORS}` could not be read (" in text
    path = tmp_path / "site.yaml"
    path.write_text(text)
    assert load_inventory(path, PROFILES).nodes == site.nodes


def test_unreadable_rdma_link_finds_the_nics_from_the_routing_tables_and_says_so(tmp_path: Path) -> None:
    facts, site, text = discovered({RDMA_LINKS: NOT_RDMA_LINK})
    assert facts.gap(RDMA) is not None
    node = site.nodes[0]
    assert len(node.nics) == 8 and {nic.name for nic in node.nics} == {nic.netdev for nic in node.nics}
    assert site.comments[("node01", node.nics[0].name, "name")] == "no RDMA device: named after its interface"
    assert f"  #   RDMA links: `{RDMA_LINKS}` could not be read (" in text
    assert "  #   NICs found from the interfaces with a source-routing table instead of rdma link" in text
    path = tmp_path / "site.yaml"
    path.write_text(text)
    assert load_inventory(path, PROFILES).nodes == site.nodes


def test_an_unreadable_gpu_listing_fails_only_that_node() -> None:
    outcomes = discover_nodes(targets_from_nodeset("node[01-02]"), DemoAnswering({AMD_GPUS: NOT_RDMA_LINK}), workers=1)
    assert [o.facts is None for o in outcomes] == [True, False]
    assert outcomes[0].error and "PCI Bus" in outcomes[0].error


@pytest.mark.parametrize("command", [LLDP_NEIGHBORS, RDMA_LINKS])
def test_the_summary_row_of_a_node_with_a_gap_is_ok(command: str) -> None:
    outcomes = discover_nodes(targets_from_nodeset("node01"), DemoAnswering({command: LLDP_DEFAULT_FORMAT}), workers=1)
    assert outcomes[0].error is None and outcomes[0].facts is not None and outcomes[0].facts.gaps
