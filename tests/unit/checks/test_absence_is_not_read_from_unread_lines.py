"""A check never reads "absent", "unmapped" or "full bandwidth" from an output one of whose lines it did not
understand: where such a line could hold the fact, the value is missing (an error naming it), never a verdict.
Each case takes a real output and damages the one line that holds the fact."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.connectivity import loss_percent
from pytest_gpufabric.checks.drivers import dkms_installed, missing_modules, peer_memory_provider
from pytest_gpufabric.checks.node_facts import PcieLinkState, pcie_link
from pytest_gpufabric.checks.pcie import acs_on_route, bandwidth_on_path
from pytest_gpufabric.checks.qos import ConfQos, app_mismatches, map_mismatches, prio_map_mismatches, tsa_text
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.gdrcopy import parse_gdrcopy_sanity
from pytest_gpufabric.parsers.kallsyms import parse_kallsyms
from pytest_gpufabric.parsers.kmod import parse_dkms_status, parse_lsmod
from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.niccli import parse_niccli_dscp2prio, parse_niccli_qos
from pytest_gpufabric.parsers.ping import parse_ping
from tests.outputs import read_output
from tests.unit.checks.answering_node import context

S0_CONF = ConfQos(roce_pri=3, roce_dscp=26, cnp_pri=7, cnp_dscp=48, roce_bw=50)
LINK = PcieLinkState(8.0, 8, 8.0, 8, False, "test")


def test_a_module_on_a_line_not_understood_is_not_missing() -> None:
    modules = parse_lsmod(read_output("lsmod", "rxe_dev_issue75_softroce.txt").replace("ib_cm                  40960  1",
                                                                                        "ib_cm                  4O960  1")).facts
    assert missing_modules(modules, ["bnxt_re"]) == ["bnxt_re"]
    with pytest.raises(MeasurementMissing, match="ib_cm: not among the loaded modules read"):
        missing_modules(modules, ["ib_cm", "bnxt_re"])


def test_a_dkms_build_on_a_line_not_understood_is_not_missing() -> None:
    text = read_output("dkms-status", "s1_wrapped.txt").replace("nvidia/570.133.20, 5.15.0-143-generic, x86_64: installed",
                                                               "nvidia/570.133.20, 5.15.0-143-generic, x86_64 installed")
    status = parse_dkms_status(text).facts
    assert dkms_installed(status, ["gdrdrv"], "5.15.0-143-generic") == (["gdrdrv"], [])
    with pytest.raises(MeasurementMissing, match="nvidia: dkms status has a line naming it"):
        dkms_installed(status, ["gdrdrv", "nvidia"], "5.15.0-143-generic")


def test_a_peer_memory_symbol_on_a_line_not_understood_is_not_absent() -> None:
    text = read_output("kallsyms", "s0_peer_mem_ib_uverbs.txt").replace("0000000000000000 T ib_register", "00000000 0000 T ib_register")
    with pytest.raises(MeasurementMissing, match="a line naming it that was not understood"):
        peer_memory_provider(parse_kallsyms(text).facts)
    assert peer_memory_provider(parse_kallsyms(read_output("kallsyms", "s0_peer_mem_ib_uverbs.txt")).facts) == "ib_uverbs"


def test_an_acs_line_not_understood_is_not_an_absent_capability() -> None:
    text = read_output("lspci-vvv", "pciutils_tests_cap_exp_lnkcap2_2020_four_devices.txt")
    assert [f.source_validation for f in acs_on_route(("0000:00:1c.0",), parse_lspci(text).facts)] == [False]
    damaged = text.replace("ACSCtl:\tSrcValid- TransBlk-", "ACSCtl:\tSrcValid TransBlk-")
    with pytest.raises(MeasurementMissing, match="ACS control line of 0000:00:1c.0"):
        acs_on_route(("0000:00:1c.0",), parse_lspci(damaged).facts)


def test_a_bandwidth_message_not_understood_is_not_full_bandwidth() -> None:
    text = read_output("kernel-pcie-bandwidth", "arm_nas_issue16_mlx5_full_bandwidth.txt")
    wrapped = text.replace("0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0", "0004:01:00.0: 63.008 Gb/s available PCIe bandwidth\n(8.0")
    log = parse_dmesg(wrapped).facts
    with pytest.raises(MeasurementMissing, match="bandwidth message of 0004:01:00.0 may be the one not understood"):
        bandwidth_on_path(log, "0004:01:00.0", LINK)
    assert bandwidth_on_path(log, "0004:01:00.1", LINK).fraction == 1.0  # the other function's message is read


def test_a_link_file_not_understood_is_not_a_link_at_capability() -> None:
    command = ("grep -H . /sys/bus/pci/devices/0000:00:06.0/current_link_speed /sys/bus/pci/devices/0000:00:06.0/current_link_width "
               "/sys/bus/pci/devices/0000:00:06.0/max_link_speed /sys/bus/pci/devices/0000:00:06.0/max_link_width")
    text = read_output("sysfs-pci-link", "h200_gpu0.txt").replace("max_link_width:16", "max_link_width:x16")
    with pytest.raises(MeasurementMissing, match="max_link_width of 0000:00:06.0 could not be measured"):
        pcie_link(context({command: (text, "", 0)}), "h200", "0000:00:06.0")


def test_niccli_maps_not_read_are_missing_not_mismatched() -> None:
    qos = parse_niccli_qos(read_output("niccli-qos", "s1_ets_show_ocr.txt")).facts  # '©:0' and 'B:ets' not read
    with pytest.raises(MeasurementMissing, match="PRIO_MAP was not read"):
        prio_map_mismatches(qos, S0_CONF)
    with pytest.raises(MeasurementMissing, match="TSA_MAP was not read"):
        tsa_text(qos)
    assert app_mismatches(qos, S0_CONF) == []


def test_an_app_entry_not_read_is_not_an_absent_entry() -> None:
    text = read_output("niccli-qos", "s0_ets_show_configured.txt").replace("          DSCP: 26", "          DSCP: twenty-six")
    qos = parse_niccli_qos(text).facts
    assert qos.app_incomplete
    with pytest.raises(MeasurementMissing, match="an entry was not understood"):
        app_mismatches(qos, S0_CONF)


def test_a_dscp_line_not_read_is_not_an_unmapped_dscp() -> None:
    text = read_output("niccli-dscp2prio", "s1_dscp2prio.txt").replace("priority:3 dscp:26", "priority:3 dscp:2b")
    mapping = parse_niccli_dscp2prio(text).facts
    measured = {dscp: mapping.mapping.get(dscp) for dscp in (26, 48)}
    with pytest.raises(MeasurementMissing, match="DSCP 26: not in the map read"):
        map_mismatches(measured, {26: 3, 48: 7}, "DSCP", complete=mapping.complete)


def test_a_ping_cut_before_its_statistics_has_no_loss() -> None:
    text = read_output("ping", "loopback-ok.txt")
    assert loss_percent(parse_ping(text[: text.index("---")]).facts) is None
    assert loss_percent(parse_ping(read_output("ping", "netns-network-unreachable.txt")).facts) == 100.0


def test_gdrcopy_cut_before_its_summary_has_no_count() -> None:
    sanity = parse_gdrcopy_sanity(read_output("gdrcopy-sanity", "gdrcopy_issue251_no_gdrdrv_verbose_excerpt.txt")).facts
    assert sanity.neither_passed_nor_waived is None and sanity.outcomes["basic_vmmalloc"] == "FAILED"
    assert parse_gdrcopy_sanity(read_output("gdrcopy-sanity", "s1_sanity.txt")).facts.neither_passed_nor_waived == 0
