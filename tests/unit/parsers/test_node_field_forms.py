"""Node-tool outputs as the field pastes them, found on outputs the project had not seen (fixtures/outputs, the
held-out set of the node-field test): each form gives the facts of the output it came from, or refuses only the
lines it cannot read; a value is never taken from a line read in part (tests/variants.py)."""

from __future__ import annotations

from ipaddress import IPv4Address

from pytest_gpufabric.checks.host import routing_problems
from pytest_gpufabric.parsers.amd_smi import parse_amd_smi_metric, parse_amd_smi_static
from pytest_gpufabric.parsers.ethtool import parse_ethtool, parse_ethtool_driver
from pytest_gpufabric.parsers.ip import parse_ip_addr, parse_ip_route
from pytest_gpufabric.parsers.lldp import parse_lldpctl_keyvalue
from pytest_gpufabric.parsers.nccl_tests import parse_nccl_tests
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_topo
from tests.outputs import read_output
from tests.variants import assert_never_misread, flat, refused_lines

TOPO = "nvidia-smi-topo"


def _lines(family: str, name: str) -> list[str]:
    return read_output(family, name).split("\n")


def test_a_topo_header_that_lost_its_first_tab_gives_the_same_facts() -> None:
    """A paste that starts at ``GPU0`` (the header's leading tab lost, as in NVIDIA/nccl#2157): the rows are read
    by their words, each checked against the header's devices and its ``X``."""
    lines = _lines(TOPO, "stelline_rtx6000x4_prompt_expanded_nic_legend.txt")
    header = next(index for index, line in enumerate(lines) if line.strip().startswith("GPU0") and "GPU1" in line)
    variant = lines[:header] + [lines[header].lstrip()] + lines[header + 1:]
    original = "\n".join(lines)
    assert flat(parse_nvidia_smi_topo("\n".join(variant))) == flat(parse_nvidia_smi_topo(original))


def test_a_topo_paste_with_every_line_indented_gives_the_same_facts() -> None:
    """Every line indented (a Markdown block inside a list, as in noonghunna/club-3090#1125)."""
    original = read_output(TOPO, "gpu_compress_a100x8_tabs_nic_legend.txt").expandtabs(8)
    indented = "\n".join("    " + line if line else line for line in original.split("\n"))
    assert flat(parse_nvidia_smi_topo(indented)) == flat(parse_nvidia_smi_topo(original))


def test_the_indented_paste_of_club3090_is_read() -> None:
    topology = parse_nvidia_smi_topo(read_output(TOPO, "club3090_issue1125_indented_wrapped_legend.txt")).facts
    assert topology.link("GPU0", "GPU1") == "NODE"
    assert topology.extra["GPU1"] == {"CPU Affinity": "0-15", "NUMA Affinity": "0", "GPU NUMA ID": "N/A"}


def _blank_cpu_affinity(line: str) -> str:
    """A tab-separated GPU row with its CPU Affinity cell empty, as GB200 systems print it for the GPUs of a socket
    whose CPUs the process does not see (``...\\tNODE\\t\\t1\\t\\tN/A``)."""
    fields = line.split("\t")
    cpu = next(index for index, field in enumerate(fields) if "," in field or "-" in field)
    return "\t".join(fields[:cpu] + [""] + fields[cpu + 1:])


def test_an_empty_cpu_affinity_cell_of_the_drivers_tab_layout_costs_only_that_cell() -> None:
    lines = _lines(TOPO, "go_gpuallocator_issue17_rtx4090x8_tabs.txt")
    row = next(index for index, line in enumerate(lines) if line.startswith("GPU6\t"))
    variant = "\n".join(lines[:row] + [_blank_cpu_affinity(lines[row])] + lines[row + 1:])
    original = parse_nvidia_smi_topo("\n".join(lines)).facts
    parsed = parse_nvidia_smi_topo(variant)
    assert parsed.facts.extra["GPU6"] == {"NUMA Affinity": "1", "GPU NUMA ID": "N/A"}
    assert parsed.facts.links == original.links and not parsed.unread
    expanded = parse_nvidia_smi_topo(variant.expandtabs(8))  # which value is missing can no longer be told
    assert row + 1 in refused_lines(expanded) and "GPU6" not in expanded.facts.links
    assert_never_misread(parse_nvidia_smi_topo("\n".join(lines)), expanded)


def test_a_topo_row_whose_x_is_not_under_its_own_device_is_refused() -> None:
    """Words that slid by one cell keep their count but move the row's ``X``: refused, never shifted."""
    lines = _lines(TOPO, "mleng_h100x8_prompt_cpu_affinity.txt")
    row = next(index for index, line in enumerate(lines) if line.startswith("GPU2 "))
    words = lines[row].split()
    words[2], words[3] = words[3], words[2]  # GPU2's X now under GPU1
    variant = "\n".join(lines[:row] + ["    ".join(words)] + lines[row + 1:])
    parsed = parse_nvidia_smi_topo(variant)
    assert row + 1 in refused_lines(parsed) and "GPU2" not in parsed.facts.links
    assert_never_misread(parse_nvidia_smi_topo("\n".join(lines)), parsed)


def test_cells_driver_550_printed_without_their_tab_are_read_by_the_legend_words() -> None:
    """``NODENODE`` in the rows (an expanded copy) and ``NIC8NIC9`` in a tab-separated header: each splits into
    the legend words or device names it is made of, in one way only."""
    parsed = parse_nvidia_smi_topo(read_output(TOPO, "sglang_issue14092_h20x8_36nics_fused_cells_driver550.txt"))
    topology = parsed.facts
    assert (topology.link("GPU0", "NIC12"), topology.link("GPU0", "NIC13"), topology.link("GPU0", "NIC35")) == ("NODE", "NODE", "PIX")
    assert topology.link("NIC12", "NIC13") == "PIX" and topology.nics["NIC34"] == "mlx5_bond_2" and not parsed.unread
    tabs = parse_nvidia_smi_topo(read_output(TOPO, "vllm_issue13855_h100x8_12nics_tabs_fused_header_excerpt.txt")).facts
    assert "NIC8" in tabs.devices and "NIC9" in tabs.devices
    assert (tabs.link("GPU5", "NIC8"), tabs.link("GPU5", "NIC9"), tabs.link("GPU0", "NIC9")) == ("NODE", "PXB", "SYS")


def test_an_indented_tag_output_paste_gives_the_facts_of_the_unindented_one() -> None:
    text = read_output("nccl-tests", "aws_do_eks_gpu_efa_p4d_tag_output_indented.txt")
    flush = "\n".join(line[4:] if line.startswith("    ") else line for line in text.split("\n"))
    assert flat(parse_nccl_tests(text)) == flat(parse_nccl_tests(flush))
    assert parse_nccl_tests(text).facts.avg_busbw_gbs == 79.9352


def test_a_prompt_above_ethtool_is_no_field_and_the_interface_is_read() -> None:
    parsed = parse_ethtool(read_output("ethtool", "aqc111_issue1_synology_eth2_prompt.txt"))
    assert parsed.facts.interface == "eth2" and parsed.facts.speed_mbps == 1000
    assert not any("@" in key for key in parsed.facts.fields)
    driver = parse_ethtool_driver(read_output("ethtool-i", "ethq_issue3_r8169_no_firmware_root_prompt.txt"))
    assert (driver.facts.driver, driver.facts.firmware_version, driver.facts.bus_info) == ("r8169", None, "0000:01:00.0")
    assert not driver.unread


def test_route_types_and_multipath_nexthops() -> None:
    routes = {route.destination: route for route in parse_ip_route(read_output("ip-route", "devhost_netns_main_multipath_blackhole.txt")).facts}
    assert routes["203.0.113.0/24"].kind == "blackhole"
    assert [(hop.gateway, hop.device) for hop in routes["198.51.100.0/24"].nexthops] == [
        ("192.168.10.3", "enp29s0np0"), ("192.168.10.5", "enp67s0np0")]
    assert routes["default"].is_default and routes["default"].gateway == "10.1.0.1"


def test_an_unreachable_default_route_is_no_default_route() -> None:
    """``unreachable default`` closes a policy-routing table; it was read as the table's default route."""
    (route,) = parse_ip_route("unreachable default metric 4278198272 \n").facts
    assert route.kind == "unreachable" and not route.is_default
    problems = routing_problems((), (route,), IPv4Address("192.168.10.2"), 101, None)
    assert "table 101 has no default route" in problems


def test_ip_brief_addresses() -> None:
    for name in ("devhost_netns_ip_br_addr.txt", "devhost_netns_ip_4_br_addr.txt"):
        addresses = parse_ip_addr(read_output("ip-addr", name)).facts
        assert [str(a) for a in addresses.of("enp29s0np0")] == ["192.168.10.2/31", "10.1.0.5/24"]
        assert [entry.name for entry in addresses.interfaces] == ["lo", "enp29s0np0", "mgmt0"]


def test_two_lldp_neighbors_on_one_interface_give_none() -> None:
    text = ("lldp.eth0.via=LLDP\nlldp.eth0.rid=1\nlldp.eth0.chassis.name=leaf1\nlldp.eth0.port.ifname=Ethernet1\n"
            "lldp.eth0.via=CDPv2\nlldp.eth0.rid=2\nlldp.eth0.chassis.name=leaf1\nlldp.eth0.port.ifname=Ethernet1/1\n"
            "lldp.eth1.via=LLDP\nlldp.eth1.rid=3\nlldp.eth1.chassis.name=leaf2\nlldp.eth1.port.ifname=Ethernet2\n")
    parsed = parse_lldpctl_keyvalue(text)
    assert parsed.facts["eth0"].neighbors == 2 and parsed.facts["eth0"].switch is None and parsed.facts["eth0"].port is None
    assert parsed.facts["eth1"].switch == "leaf2" and any("2 LLDP neighbors on eth0" in note for note in parsed.notes)


def test_an_amd_smi_list_value_wrapped_over_lines_is_read_whole() -> None:
    parsed = parse_amd_smi_metric(read_output("amd-smi-metric", "changelog_usage_xcp_wrapped_lists.txt"))
    usage = parsed.facts[0]["USAGE"]
    assert usage["JPEG_ACTIVITY"].startswith("[0 %") and usage["JPEG_ACTIVITY"].endswith("N/A, N/A]")
    assert usage["JPEG_ACTIVITY"].count("N/A") == 24 and not parsed.unread
    cut = "GPU: 0\n    USAGE:\n        JPEG_ACTIVITY: [0 %, 0 %,\n        GFX_ACTIVITY: 0 %\n"
    cut_parsed = parse_amd_smi_metric(cut)
    assert "JPEG_ACTIVITY" not in cut_parsed.facts[0]["USAGE"] and cut_parsed.facts[0]["USAGE"]["GFX_ACTIVITY"] == "0 %"


def test_a_cpu_block_of_an_apu_never_lands_in_a_gpu() -> None:
    text = read_output("amd-smi-static", "amdsmi_readme_mi300a_x4_cpu_blocks.txt")
    parsed = parse_amd_smi_static(text)
    assert sorted(parsed.facts) == [0, 1, 2, 3] and all("SMU" not in tree for tree in parsed.facts.values())
    after = parse_amd_smi_static("GPU: 0\n    BUS:\n        BDF: 0000:01:00.0\nCPU: 0\n    SMU:\n        FW_VERSION: 85.90.0\n")
    assert after.facts == {0: {"BUS": {"BDF": "0000:01:00.0"}}} and len(after.unread) == 3
