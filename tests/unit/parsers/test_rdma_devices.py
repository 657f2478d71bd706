"""rdma link, ibv_devinfo, ibv_devices, bnxt_re.conf: the RDMA device and RoCE configuration parsers."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.ibverbs import parse_ibv_devices, parse_ibv_devinfo
from pytest_gpufabric.parsers.rdma import parse_rdma_link

DOCUMENTED_DEFAULTS = {"ENABLE_FC": 1, "FC_MODE": 3, "ROCE_PRI": 3, "ROCE_DSCP": 26, "CNP_PRI": 7, "CNP_DSCP": 48, "ROCE_BW": 50}


@pytest.mark.parametrize(
    ("name", "utility"),
    [("s0_defaults.txt", 4), ("s3_defaults.txt", 3), ("s1_defaults_blank_lines.txt", 4)],
    ids=["s0", "s3", "s1-blank-lines"],
)
def test_bnxt_re_conf(output, name: str, utility: int) -> None:
    conf = parse_bnxt_re_conf(output("bnxt-re-conf", name)).facts
    assert {key: conf.get_int(key) for key in DOCUMENTED_DEFAULTS} == DOCUMENTED_DEFAULTS
    assert conf.get_int("UTILITY") == utility
    assert conf.get_int("MISSING_KEY") is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("cat: /etc/bnxt_re/bnxt_re.conf: No such file or directory\n", "expected KEY=VALUE"),
     ("# only a comment\n", "no KEY=VALUE"), ("ROCE_PRI=3\nROCE_PRI=5\n", "ROCE_PRI set twice")],
    ids=["missing-file", "comments-only", "duplicate"],
)
def test_malformed_bnxt_re_conf(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_bnxt_re_conf, text, "bnxt-re-conf", fragment)


def test_bnxt_re_conf_non_integer_value_is_reported() -> None:
    conf = parse_bnxt_re_conf("ROCE_PRI=three\n").facts
    with pytest.raises(Exception, match="ROCE_PRI: expected an integer"):
        conf.get_int("ROCE_PRI")


@pytest.mark.parametrize(
    ("name", "count", "device", "netdev"),
    [("s0_eight_links.txt", 8, "bnxt_re4", "enp160s0np0"), ("s0_eight_links_cluster.txt", 8, "bnxt_re4", "enp158s0np0"),
     ("s0_grep_bnxt_re0.txt", 1, "bnxt_re0", "enp29s0np0")],
    ids=["faq9", "cluster-node", "grep-one"],
)
def test_rdma_link(output, name: str, count: int, device: str, netdev: str) -> None:
    links = parse_rdma_link(output("rdma-link", name)).facts
    assert len(links.links) == count
    link = links.get(device)
    assert (link.port, link.state, link.physical_state, link.netdev) == (1, "ACTIVE", "LINK_UP", netdev)
    assert links.get(device, port=2) is None


def test_rdma_link_down_without_netdev() -> None:
    (link,) = parse_rdma_link("link rocep1s0f1/1 state DOWN physical_state DISABLED\n").facts.links
    assert (link.state, link.physical_state, link.netdev) == ("DOWN", "DISABLED", None)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Command \"link\" is unknown, try \"rdma help\".\n", "expected 'link <device>/<port>"), ("link bnxt_re0 state ACTIVE\n", "expected")],
    ids=["old-iproute2", "no-port"],
)
def test_malformed_rdma_link(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_rdma_link, text, "rdma-link", fragment)


@pytest.mark.parametrize(
    ("name", "hca", "active_mtu", "link_layer", "node_guid"),
    [
        ("softroce_issue46_rxe0.txt", "rxe0", 1024, None, "428d:5cff:fe35:bb12"),
        ("deepep_issue38_mlx5_2.txt", "mlx5_2", 4096, "Ethernet", "a088:c203:007e:1dba"),
    ],
    ids=["softroce-no-link-layer", "roce-4096"],
)
def test_ibv_devinfo(output, name: str, hca: str, active_mtu: int, link_layer, node_guid: str) -> None:
    info = parse_ibv_devinfo(output("ibv-devinfo", name)).facts
    device = info.get(hca)
    assert device.node_guid == node_guid and len(info.devices) == 1
    port = device.port(1)
    assert (port.state, port.max_mtu, port.active_mtu, port.link_layer) == ("PORT_ACTIVE", 4096, active_mtu, link_layer)
    assert info.abi_warnings == ()


def test_kernel_abi_warning_wrapped_over_two_lines(output) -> None:
    info = parse_ibv_devinfo(output("ibv-devinfo", "s0_kernel_abi_warning.txt")).facts
    assert info.devices == ()
    assert len(info.abi_warnings) == 2
    warning = info.abi_warnings[0]
    assert (warning.driver, warning.kernel_abi, warning.supported_min, warning.supported_max) == ("bnxt_re", 6, 1, 1)
    assert warning.device_path == "/sys/class/infiniband/bnxt_re0"


def test_ibv_devinfo_gids_of_verbose_output() -> None:
    text = (
        "hca_id:\tbnxt_re0\n\ttransport:\t\t\tInfiniBand (0)\n\tphys_port_cnt:\t\t\t1\n"
        "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tactive_mtu:\t\t4096 (5)\n"
        "\t\t\tGID[  3]:\t\t::ffff:1.1.101.15, RoCE v2\n"
    )
    gid = parse_ibv_devinfo(text).facts.get("bnxt_re0").port().gids[3]
    assert (gid.gid, gid.kind) == ("::ffff:1.1.101.15", "RoCE v2")


def test_no_devices_is_an_empty_result() -> None:
    assert parse_ibv_devinfo("No IB devices found\n").facts.devices == ()


def test_flattened_by_extraction_is_refused(output, parse_error) -> None:
    parse_error(parse_ibv_devinfo, output("ibv-devinfo", "s3_flattened.txt"), "ibv-devinfo", "no 'hca_id:' device")


def test_a_device_cut_short_keeps_what_was_printed(output) -> None:
    """The quote stops inside the second device: the first is read whole, the second as far as it goes."""
    first, second = parse_ibv_devinfo(output("ibv-devinfo", "azhpc_pr44_truncated_second_device.txt")).facts.devices
    assert first.port(1).state == "PORT_ACTIVE" and first.port(1).active_mtu == 1024
    assert (second.hca_id, second.fw_ver, second.vendor_part_id, second.board_id, second.ports) == (
        "ibP57247p0s2", "16.26.0206", "4120", None, ())


def test_ibv_devinfo_without_its_port_section() -> None:
    (device,) = parse_ibv_devinfo("hca_id: bnxt_re0\n\tphys_port_cnt: 1\n").facts.devices
    assert device.port(1) is None


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("PORT_ACTIVE (4)", "ACTIVE", "state 'ACTIVE' is not in the form"),
    ("Ethernet\n", "Ethernet\n\t\t\tGID[  0]:\t\tfe80::1, RoCE v3\n", "GID type 'RoCE v3'"),
    ("Ethernet\n", "Ethernet\n\t\t\tactive_mtu:\t\t1024 (3)\n", "active_mtu given twice"),
], ids=["state-without-code", "unknown-gid-type", "twice"])
def test_a_port_line_of_another_form_costs_only_its_fact(output, unread_line, old: str, new: str, fragment: str) -> None:
    parsed = parse_ibv_devinfo(output("ibv-devinfo", "deepep_issue38_mlx5_2.txt").replace(old, new))
    unread_line(parsed, fragment)
    port = parsed.facts.get("mlx5_2").port(1)
    assert (port.max_mtu, port.active_mtu, port.gids) == (4096, 4096, {})
    assert port.state == (None if new == "ACTIVE" else "PORT_ACTIVE")


def test_ibv_devices_with_zero_guids(output) -> None:
    devices = parse_ibv_devices(output("ibv-devices", "sriov_device_plugin_issue20_server.txt")).facts
    assert [(d.name, d.guid_is_zero) for d in devices] == [
        ("mlx5_2", True), ("mlx5_0", False), ("mlx5_3", True), ("mlx5_1", False)]
    assert devices[1].node_guid == "506b4b0300285028"


def test_ibv_devices_document_sample(output, parse_error) -> None:
    """The document's Markdown escape (bnxt\\_re0) is not a device name the kernel registers: the row is not read."""
    parse_error(parse_ibv_devices, output("ibv-devices", "s3_one_device.txt"), "bnxt\\\\_re0", "expected '<device> <16-hex-digit GUID>'")


def test_ibv_devices_header_only(output) -> None:
    assert parse_ibv_devices(output("ibv-devices", "rxe_dev_issue75_no_device.txt")).facts == ()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Failed to get IB devices list: Function not implemented\n", "no 'device node GUID' header"),
     ("device node GUID\n------ ----\nbnxt_re0 be97e1ff\n", "16-hex-digit GUID")],
    ids=["error-message", "short-guid"],
)
def test_malformed_ibv_devices(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_ibv_devices, text, "ibv-devices", fragment)


def test_ibv_devices_tab_separated_as_the_tool_prints_it() -> None:
    # rdma-core libibverbs/examples/device.c: printf("    %-16s\t   node GUID\n", "device");
    # printf("    %-16s\t----------------\n", "------"); printf("    %-16s\t%016llx\n", name, guid)
    text = "    device          \t   node GUID\n    ------          \t----------------\n    bnxt_re0        \tbe97e1fffeda96d0\n"
    assert [(d.name, d.node_guid) for d in parse_ibv_devices(text).facts] == [("bnxt_re0", "be97e1fffeda96d0")]
