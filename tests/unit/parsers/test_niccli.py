from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.niccli import (
    parse_niccli_dscp2prio,
    parse_niccli_list,
    parse_niccli_nvm_option,
    parse_niccli_pri2cos,
    parse_niccli_qos,
)

DOCUMENTED_PRIO_MAP = {0: 0, 1: 0, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 2}


@pytest.mark.parametrize(
    ("name", "bandwidth"),
    [("s0_ets_show_configured.txt", (50, 50, 0, 0, 0, 0, 0, 0)), ("s3_getqos.txt", (50, 50, 0))],
    ids=["qos-ets-show", "older-getqos"],
)
def test_configured_qos(output, name: str, bandwidth: tuple[int, ...]) -> None:
    qos = parse_niccli_qos(output("niccli-qos", name)).facts
    assert qos.prio_map == DOCUMENTED_PRIO_MAP
    assert qos.tc_bandwidth == bandwidth
    assert (qos.tsa_map[0], qos.tsa_map[1], qos.tsa_map[2]) == ("ets", "ets", "strict")
    assert qos.pfc_enabled == frozenset({3})
    assert qos.app_priority("dscp", 26) == 3 and qos.app_priority("dscp", 48) == 7
    assert qos.app_priority("udp", 4791) == 3 and qos.app_priority("dscp", 0) is None
    assert [entry.selector for entry in qos.app] == [5, 5, 3]
    assert qos.tc_rate_limit == (100, 100, 100, 0, 0, 0, 0, 0)
    assert not qos.unconfigured


def test_unconfigured_qos_of_faq5(output) -> None:
    qos = parse_niccli_qos(output("niccli-qos", "s0_ets_show_unconfigured.txt")).facts
    assert qos.unconfigured
    assert qos.pfc_enabled == frozenset()
    assert qos.app is None and qos.tc_rate_limit is None
    assert set(qos.tsa_map.values()) == {"strict"}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("ERROR: Device not found\n", "no IEEE 8021QAZ TLV field read")],
    ids=["empty", "error-message"],
)
def test_refused_qos(parse_error, text, fragment) -> None:
    parse_error(parse_niccli_qos, text, "niccli-qos", fragment)


def test_s1_ocr_costs_only_the_garbled_maps(output, unread_line) -> None:
    """S1's OCR turned '0:' into '©:' and '0:ets' into 'B:ets': those two maps are not read (a check judging them
    says so), the bandwidth, PFC and APP entries are."""
    parsed = parse_niccli_qos(output("niccli-qos", "s1_ets_show_ocr.txt"))
    qos = parsed.facts
    assert qos.prio_map is None and qos.tsa_map is None and qos.unconfigured is None
    assert qos.tc_bandwidth == (50, 50, 0) and qos.pfc_enabled == frozenset({3})
    assert qos.app_priority("dscp", 26) == 3 and not qos.app_incomplete
    unread_line(parsed, "PRIO_MAP", "'©'")
    unread_line(parsed, "TSA_MAP", "'B'")


@pytest.mark.parametrize(
    ("text", "fragment", "missing"),
    [
        ("IEEE 8021QAZ ETS Configuration TLV:\nPRIO_MAP: 0:0\nTC Bandwidth: 50 50\nTSA_MAP: 0:ets\n", "'50' is not a percentage",
         "tc_bandwidth"),
        ("IEEE 8021QAZ ETS Configuration TLV:\nPRIO_MAP: 0:0\nTC Bandwidth: 50%\nTSA_MAP: 0:fair\n", "a selection other than",
         "tsa_map"),
    ],
    ids=["bandwidth-without-percent", "unknown-selection"],
)
def test_a_field_line_of_another_form_costs_only_that_field(unread_line, text: str, fragment: str, missing: str) -> None:
    parsed = parse_niccli_qos(text)
    unread_line(parsed, fragment)
    assert getattr(parsed.facts, missing) is None and parsed.facts.prio_map == {0: 0}


def test_an_app_entry_cut_short_is_not_read_and_says_so(unread_line) -> None:
    text = ("IEEE 8021QAZ ETS Configuration TLV:\nPRIO_MAP: 0:0\nTC Bandwidth: 50%\nTSA_MAP: 0:ets\n"
            "IEEE 8021QAZ APP TLV:\nAPP#0:\nPriority: 3\nSel: 5\nDSCP: 26\nAPP#1:\nPriority: 7\n")
    parsed = parse_niccli_qos(text)
    assert [e.value for e in parsed.facts.app] == [26] and parsed.facts.app_incomplete
    unread_line(parsed, "APP#1", "expected Priority, Sel and one protocol line")


def test_an_ets_block_cut_short_keeps_what_it_printed() -> None:
    qos = parse_niccli_qos("IEEE 8021QAZ ETS Configuration TLV:\n         PRIO_MAP: 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:2\n").facts
    assert qos.prio_map[3] == 1 and qos.tc_bandwidth is None and qos.tsa_map is None and qos.pfc_enabled is None


def test_pri2cos(output) -> None:
    table = parse_niccli_pri2cos(output("niccli-pri2cos", "s0_pri2cos.txt")).facts
    assert table.base_queue == 0
    assert {entry.priority: entry.traffic_class for entry in table.entries} == DOCUMENTED_PRIO_MAP
    assert table.traffic_class(7) == 2 and table.entries[3].hw_queue == 0 and table.traffic_class(9) is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Priority   TC HW Queue ID\n------------------------\n", "no '<priority> <tc> <queue>' row")],
    ids=["cut-after-header"],
)
def test_refused_pri2cos(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_niccli_pri2cos, text, fragment)


def test_pri2cos_cut_before_its_table_is_incomplete() -> None:
    table = parse_niccli_pri2cos("Base Queue is 0 for port 0.\n").facts
    assert table.base_queue == 0 and table.entries == () and not table.complete


def test_a_bad_pri2cos_row_costs_only_its_priority(unread_line) -> None:
    parsed = parse_niccli_pri2cos("Priority   TC HW Queue ID\n 0  zero 4\n 3  1    0\n")
    assert parsed.facts.traffic_class(3) == 1 and parsed.facts.traffic_class(0) is None and not parsed.facts.complete
    unread_line(parsed, "0  zero 4", "TC: expected a whole number")


@pytest.mark.parametrize("name", ["s0_dscp2prio.txt", "s1_dscp2prio.txt"], ids=["s0-trailing-commas", "s1"])
def test_dscp2prio(output, name: str) -> None:
    assert parse_niccli_dscp2prio(output("niccli-dscp2prio", name)).facts.mapping == {26: 3, 48: 7}


def test_dscp2prio_without_entries_is_an_empty_mapping() -> None:
    assert parse_niccli_dscp2prio("dscp2prio mapping:\n").facts.mapping == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("priority:3 dscp:x\n", "expected 'priority:<n> dscp:<n>"), ("ERROR: invalid option\n", "no 'dscp2prio mapping:'")],
    ids=["bad-dscp", "error-message"],
)
def test_malformed_dscp2prio(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_niccli_dscp2prio, text, fragment)


@pytest.mark.parametrize(
    ("name", "option", "value", "enabled"),
    [
        ("s1_support_rdma.txt", "support_rdma", "True", True),
        ("s1_performance_profile.txt", "performance_profile", "RoCE", None),
        ("s1_pcie_relaxed_ordering.txt", "pcie_relaxed_ordering", "Disabled", False),
        ("s1_dcbx_mode.txt", "dcbx_mode", "Disabled", False),
        ("s1_lldp_nearest_bridge.txt", "lldp_nearest_bridge", "Disabled", False),
        ("s1_lldp_nearest_non_tpmr_bridge.txt", "lldp_nearest_non_tpmr_bridge", "Disabled", False),
    ],
    ids=lambda value: value if isinstance(value, str) and value.endswith(".txt") else None,
)
def test_nvm_option(output, name: str, option: str, value: str, enabled) -> None:
    parsed = parse_niccli_nvm_option(output("niccli-nvm-getoption", name)).facts
    assert (parsed.name, parsed.value, parsed.enabled, parsed.number) == (option, value, enabled, None)


@pytest.mark.parametrize(
    ("text", "enabled", "number"),
    [("support_rdma = Enabled (1)\n", True, 1), ("performance_profile = 1\n", None, 1)],
    ids=["word-and-number", "number-only"],
)
def test_nvm_option_numbers(text: str, enabled, number: int) -> None:
    parsed = parse_niccli_nvm_option(text).facts
    assert (parsed.enabled, parsed.number) == (enabled, number)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("ERROR: Invalid option name\n", "expected one 'name = value' line"),
     ("dcbx_mode = Disabled\ndcbx_mode = Disabled\n", "one of several 'name = value' lines"),
     ("dcbx_mode =\n", "expected 'name = value'")],
    ids=["error-message", "loop-output", "no-value"],
)
def test_malformed_nvm_option(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_niccli_nvm_option, text, "niccli-nvm-getoption", fragment)


def test_nvm_option_after_niccli_banner() -> None:
    text = ("-" * 76 + "\nScrutiny NIC CLI v227.0.130.0 - Broadcom Inc. (c) 2023 (Bld-61.52.25.90.16.0)\n" + "-" * 76
            + "\nsupport_rdma = Enabled (1)\n")
    assert parse_niccli_nvm_option(text).facts.enabled is True


def test_list(output) -> None:
    nics = parse_niccli_list(output("niccli-list", "s1_list.txt")).facts
    assert len(nics) == 8 and {nic.firmware for nic in nics} == {"234.0.145.0"}
    assert (nics[5].index, nics[5].pci_address, nics[5].mac) == (6, "0000:04:0b.0", "8c:84:74:5a:38:e0")
    assert nics[0].board == "BCM57608(B1)"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("BoardId(Rev) MAC Address FwVersion PCIAddr Type  Mode\n", "no '<n>) <board>"),
     ("1) BCM57608(B1) 8C:84:74:5A:4D:20 234.0.145.0\n", "expected '<n>) <board> <mac>")],
    ids=["header-only", "truncated-row"],
)
def test_malformed_list(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_niccli_list, text, fragment)


def test_list_of_niccli_227_with_domain_bus_device_function_addresses(output) -> None:
    nics = parse_niccli_list(output("niccli-list", "weka_docs_v227_bus_dev_fn_form.txt")).facts  # banner lines before the table
    assert [(n.index, n.board, n.firmware, n.pci_address, n.mac) for n in nics] == [
        (1, "BCM57508", "224.1.102.0", "0000:0d:00.0", "84:16:0a:3e:0e:20"),
        (2, "BCM57508", "224.1.102.0", "0000:0d:00.1", "84:16:0a:3e:0e:21"),
    ]


def test_list_of_niccli_237_with_right_justified_indexes(output) -> None:
    nics = parse_niccli_list(output("niccli-list", "rocm_cvs_v237_right_justified_index.txt")).facts
    assert [n.index for n in nics] == [1, 2, 10, 16]
    assert (nics[3].pci_address, nics[3].firmware, nics[3].board) == ("0000:e6:00.1", "237.1.148.0", "BCM57608(B1)")


@pytest.mark.parametrize(("old", "new"), [("00:0d:00:01", "00:0d:00:08"), ("00:0d:00:01", "0d:00:01")],
                         ids=["function-8", "three-fields"])
def test_list_with_a_bad_old_style_address(output, unread_line, old: str, new: str) -> None:
    text = output("niccli-list", "weka_docs_v227_bus_dev_fn_form.txt").replace(old, new)
    parsed = parse_niccli_list(text)
    assert [n.index for n in parsed.facts] == [1]
    unread_line(parsed, f"2) BCM57508    84:16:0A:3E:0E:21  224.1.102.0  {new}", "expected '<n>) <board>")


def test_list_devices_blocks_of_niccli_234(output) -> None:
    (nic,) = parse_niccli_list(output("niccli-list", "node_scraper_list_devices_v234.txt")).facts
    assert (nic.index, nic.board, nic.port) == (1, "Broadcom BCM57608 1x400G QSFP-DD PCIe Ethernet NIC", "Adp#1 Port#1")
    assert (nic.interface, nic.mac, nic.pci_address) == ("abcd1p1", "81:82:83:84:85:88", "0000:22:00.0")
    assert nic.firmware is None  # this layout does not print it


def test_list_devices_block_cut_short(output, parse_error) -> None:
    text = output("niccli-list", "node_scraper_list_devices_v234.txt")
    parse_error(parse_niccli_list, text[: text.index("    PCI Address")], "device 1: no PCI Address line")


def test_list_devices_block_with_a_bad_address(output, parse_error) -> None:
    text = output("niccli-list", "node_scraper_list_devices_v234.txt").replace("0000:22:00.0", "22:00")
    parse_error(parse_niccli_list, text, "PCI Address '22:00'")
