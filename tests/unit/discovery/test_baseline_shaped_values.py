"""`gpufabric baseline` proposes a site value where the profile documents none for the known-good node's shape:
the single-node all_reduce of the real 2 x H200 capture (recordings/device-h200), 5 % below what it measured."""

from __future__ import annotations

from pathlib import Path

import yaml

from pytest_gpufabric.discovery.baseline import render_overrides
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import FoundGpu, FoundPlatform, NodeFacts
from pytest_gpufabric.discovery.shaped_values import propose_shaped_values, proposed
from pytest_gpufabric.expectations import apply_site_overrides, load_profile
from pytest_gpufabric.shapes import MachineShape
from pytest_gpufabric.transport.base import CommandResult

ROOT = Path(__file__).resolve().parents[3]
ALL_REDUCE = "all_reduce_perf -b 8 -e 8G -f 2 -g 2"


def _recorded(command: str) -> str:
    nodes = yaml.safe_load((ROOT / "recordings" / "device-h200" / "recording" / "nodes" / "h200.yaml").read_text())
    return next(c["episodes"][0]["stdout"] for c in nodes["commands"] if c["command"] == command)


class _Node:
    """The machine of the capture: answers the all_reduce as it printed it; nothing else is installed."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def run(self, node: str, command: str, timeout_s: float, *, item: str | None = None) -> CommandResult:
        self.asked.append(command)
        if command == ALL_REDUCE:
            return CommandResult(node, command, _recorded(ALL_REDUCE), "", 0, 7.4)
        return CommandResult(node, command, "", f"bash: {command.split()[0]}: command not found\n", 127, 0.0)

    def close(self) -> None:
        pass


FACTS = NodeFacts("h200", "127.0.0.1", FoundPlatform("nvidia", "H200", "broadcom", "kvm", gpu_link="nvswitch"),
                  (FoundGpu(0, "0000:00:06.0", None), FoundGpu(1, "0000:00:07.0", None)), ())


def test_the_two_gpu_all_reduce_is_measured_and_proposed_as_a_site_value() -> None:
    node = _Node()
    reader = NodeReader(node, "h200", 60.0)
    profile = load_profile(ROOT / "thresholds", "hgx-h100-thor2")
    readings = list(propose_shaped_values(reader, FACTS, profile))
    assert [(r.check, r.name, r.value, r.command) for r in readings] == [
        ("COLL-001", "busbw_8gb_gbs", proposed(347.95), ALL_REDUCE)]
    assert proposed(347.95) == 330.5
    assert node.asked == [ALL_REDUCE]  # COLL-006 is AMD's (catalog applies); the NIC values concern no NIC here
    text = render_overrides("h200", readings, profile, reader.notes, "overrides")
    assert "    # site value: measured 347.95 GB/s on h200, 5% below proposed; hgx-h100-thor2 documents no value for 2 x H200 NVSwitch" in text
    assert "    busbw_8gb_gbs: 330.5  # h200: `all_reduce_perf -b 8 -e 8G -f 2 -g 2`; proposed hgx-h100-thor2: 8 GPUs NVSwitch: >= 456 GB/s" in text
    site = apply_site_overrides({profile.name: profile}, {"COLL-001": {"busbw_8gb_gbs": 330.5}}, "site.yaml")[profile.name]
    judged = site.get("COLL-001", "busbw_8gb_gbs", MachineShape(2, "H200", "nvswitch"))
    assert judged.holds_for(347.95) and judged.source.startswith("site value: site.yaml")


def test_a_documented_shape_needs_no_proposal() -> None:
    eight = NodeFacts("n", "n", FoundPlatform("nvidia", "H100", "broadcom", "none", gpu_link="nvswitch"),
                      tuple(FoundGpu(i, f"0000:{i + 16:02x}:00.0", None) for i in range(8)), ())
    node = _Node()
    assert list(propose_shaped_values(NodeReader(node, "n", 60.0), eight, load_profile(ROOT / "thresholds", "hgx-h100-thor2"))) == []
    assert node.asked == []
