"""amd-smi topology / static / metric, text and --json, on the example outputs of ROCm/amdsmi's CHANGELOG."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.amd_smi import (
    parse_amd_smi_json,
    parse_amd_smi_metric,
    parse_amd_smi_static,
    parse_amd_smi_topology,
    parse_amd_smi_topology_json,
    pcie_link,
    quantity,
)

Output = Callable[[str, str], str]
EIGHT = ("0000:0c:00.0", "0000:22:00.0", "0000:38:00.0", "0000:5c:00.0", "0000:9f:00.0", "0000:af:00.0",
         "0000:bf:00.0", "0000:df:00.0")


def test_topology_all_tables(output: Output) -> None:
    topology = parse_amd_smi_topology(output("amd-smi-topology", "changelog_8gpu_xgmi_all_tables.txt")).facts
    assert topology.devices == EIGHT
    assert list(topology.tables) == ["ACCESS", "WEIGHT", "HOPS", "LINK TYPE", "NUMA BW"]
    assert {link for _, _, link in topology.pairs()} == {"XGMI"} and len(topology.pairs()) == 28
    assert topology.value("LINK TYPE", EIGHT[0], EIGHT[0]) == "SELF"
    assert topology.value("WEIGHT", EIGHT[1], EIGHT[7]) == "15" and topology.value("HOPS", EIGHT[2], EIGHT[3]) == "1"
    assert topology.value("NUMA BW", EIGHT[0], EIGHT[1]) == "50000-50000"


def test_topology_capability_tables_and_legend(output: Output) -> None:
    topology = parse_amd_smi_topology(output("amd-smi-topology", "changelog_cndz_capability_tables.txt")).facts
    assert list(topology.tables) == ["CACHE COHERANCY", "ATOMICS", "DMA", "BI-DIRECTIONAL"]
    assert topology.value("ATOMICS", EIGHT[0], EIGHT[1]) == "64,32"
    assert topology.value("CACHE COHERANCY", EIGHT[0], EIGHT[2]) == "NC"
    assert topology.pairs() == ()  # no LINK TYPE table in this selection


def test_topology_truncated_keeps_the_rows_before_the_cut(output: Output) -> None:
    text = output("amd-smi-topology", "changelog_8gpu_xgmi_all_tables.txt")
    topology = parse_amd_smi_topology(text[: text.index("0000:5c:00.0 1  ")]).facts
    assert sorted(topology.tables["HOPS"]) == list(EIGHT[:3]) and "LINK TYPE" not in topology.tables


def test_topology_given_rocm_smi_output(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_amd_smi_topology, output("rocm-smi-showtopo", "archer2_mi210x4_xgmi.txt"), "no '<NAME> TABLE:' block")


def test_topology_json_previous_layout(output: Output) -> None:
    topology = parse_amd_smi_topology_json(output("amd-smi-topology-json", "changelog_previous_format_2gpu.json")).facts
    assert topology.devices == ("gpu_0", "gpu_1")
    assert topology.pairs() == (("gpu_0", "gpu_1", "PCIE"),)
    assert topology.value("ACCESS", "gpu_0", "gpu_1") == "DISABLED"
    assert (topology.value("WEIGHT", "gpu_1", "gpu_0"), topology.value("HOPS", "gpu_1", "gpu_0")) == ("40", "2")


def test_topology_json_current_layout(output: Output) -> None:
    topology = parse_amd_smi_topology_json(output("amd-smi-topology-json", "changelog_access_type_2gpu.json")).facts
    assert topology.devices == ("0000:08:00.0", "0000:44:00.0")
    assert topology.pairs() == (("0000:08:00.0", "0000:44:00.0", "PCIE"),)
    assert topology.value("ACCESS", "0000:44:00.0", "0000:44:00.0") == "ENABLED"
    assert "HOPS" not in topology.tables  # -a -t asks for access and type only


def test_topology_json_elided_in_the_document(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_amd_smi_topology_json, output("amd-smi-topology-json", "changelog_new_format_elided.txt"), "not JSON")


def test_static_asic(output: Output) -> None:
    static = parse_amd_smi_static(output("amd-smi-static", "changelog_asic_mi308x.txt")).facts
    asic = static[0]["ASIC"]
    assert (asic["MARKET_NAME"], asic["DEVICE_ID"], asic["TARGET_GRAPHICS_VERSION"]) == ("MI308X", "0x74a2", "gfx942")
    assert asic["VENDOR_NAME"] == "Advanced Micro Devices Inc. [AMD/ATI]"


def test_static_limits_with_units(output: Output) -> None:
    static = parse_amd_smi_static(output("amd-smi-static", "changelog_limit_2gpu.txt")).facts
    assert sorted(static) == [0, 1]
    assert quantity(static[1]["LIMIT"]["MAX_POWER"]) == (213.0, "W")
    assert quantity(static[0]["LIMIT"]["SHUTDOWN_EDGE_TEMPERATURE"]) == (105.0, "°C")


@pytest.mark.parametrize(("old", "new", "found"), [("GPU: 0\n", "", "'LIMIT:'"), ("MAX_POWER: 213 W", "MAX_POWER 213 W", "'MAX_POWER 213 W'")],
                         ids=["cut-before-the-first-gpu", "value-without-colon"])
def test_static_malformed(output: Output, unread_line: Callable[..., str], old: str, new: str, found: str) -> None:
    text = output("amd-smi-static", "changelog_limit_2gpu.txt").replace(old, new, 1)
    parsed = parse_amd_smi_static(text)
    unread_line(parsed, found.strip("'"), "expected 'GPU: <n>' or an indented 'KEY: value' line")
    assert parsed.facts[1]["LIMIT"]["MIN_POWER"].endswith(" W")  # the rest is read


def test_metric_pcie_link(output: Output) -> None:
    metric = parse_amd_smi_metric(output("amd-smi-metric", "changelog_pcie_elided.txt")).facts
    assert pcie_link(metric, 0) == pcie_link(metric, 1) == (32.0, 16)
    assert quantity(metric[0]["PCIE"]["BANDWIDTH"]) == (18.0, "Mb/s")
    assert quantity(metric[0]["PCIE"]["CURRENT_BANDWIDTH_SENT"]) is None  # N/A
    assert pcie_link(metric, 7) is None


def test_metric_nested_sections(output: Output) -> None:
    clock = parse_amd_smi_metric(output("amd-smi-metric", "changelog_clock.txt")).facts[0]["CLOCK"]
    assert clock["GFX_0"]["MAX_CLK"] == "1800 MHz" and clock["GFX_1"]["CLK_LOCKED"] == "DISABLED" and clock["VCLK_1"]["CLK_LOCKED"] == "N/A"
    power = parse_amd_smi_metric(output("amd-smi-metric", "changelog_power_2gpu.txt")).facts
    assert quantity(power[1]["POWER"]["SOCKET_POWER"]) == (17.0, "W")


def test_metric_line_outside_a_gpu_block(output: Output, unread_line: Callable[..., str]) -> None:
    text = "$ amd-smi metric --power\n" + output("amd-smi-metric", "changelog_power_2gpu.txt")
    parsed = parse_amd_smi_metric(text)
    unread_line(parsed, "$ amd-smi metric --power", "expected 'GPU: <n>'")
    assert sorted(parsed.facts) == [0, 1]


def test_json_metric_and_process(output: Output) -> None:
    power = parse_amd_smi_json(output("amd-smi-json", "changelog_metric_power.json")).facts[0]["power"]
    assert quantity(power["socket_power"]) == (10.0, "W") and power["throttle_status"] == "UNTHROTTLED"
    processes = parse_amd_smi_json(output("amd-smi-json", "changelog_process_list.json")).facts[0]["process_list"]
    assert [p["process_info"]["name"] for p in processes] == ["TransferBench", "rvs"]


@pytest.mark.parametrize("text", ["{}", "[]", '[{"power": {}}]', '[{"gpu": 0}, {"gpu": 0}]'],
                         ids=["object", "empty", "no-gpu", "twice"])
def test_json_not_per_gpu(text: str) -> None:
    with pytest.raises(ParseError):
        parse_amd_smi_json(text).facts


def test_json_truncated(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("amd-smi-json", "changelog_metric_power.json")
    parse_error(parse_amd_smi_json, text[: len(text) // 2], "not JSON")
    assert json.loads(text)  # the whole file is valid
