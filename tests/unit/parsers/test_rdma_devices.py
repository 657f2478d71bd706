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
    conf = parse_bnxt_re_conf(output("bnxt-re-conf", name))
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
    conf = parse_bnxt_re_conf("ROCE_PRI=three\n")
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
    info = parse_ibv_devinfo(output("ibv-devinfo", name))
    device = info.get(hca)
    assert device.node_guid == node_guid and len(info.devices) == 1
    port = device.port(1)
    assert (port.state, port.max_mtu, port.active_mtu, port.link_layer) == ("PORT_ACTIVE", 4096, active_mtu, link_layer)
    assert info.abi_warnings == ()


def test_kernel_abi_warning_wrapped_over_two_lines(output) -> None:
    info = parse_ibv_devinfo(output("ibv-devinfo", "s0_kernel_abi_warning.txt"))
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
    gid = parse_ibv_devinfo(text).get("bnxt_re0").port().gids[3]
    assert (gid.gid, gid.kind) == ("::ffff:1.1.101.15", "RoCE v2")


def test_no_devices_is_an_empty_result() -> None:
    assert parse_ibv_devinfo("No IB devices found\n").devices == ()


@pytest.mark.parametrize(
    ("name", "fragments"),
    [("azhpc_pr44_truncated_second_device.txt", ("ibP57247p0s2: no phys_port_cnt", "truncated")),
     ("s3_flattened.txt", ("no 'hca_id:' device",))],
    ids=["truncated-second-device", "s3-flattened-by-extraction"],
)
def test_malformed_ibv_devinfo(output, parse_error, name: str, fragments: tuple[str, ...]) -> None:
    parse_error(parse_ibv_devinfo, output("ibv-devinfo", name), "ibv-devinfo", *fragments)


def test_ibv_devinfo_missing_port_section(parse_error) -> None:
    parse_error(parse_ibv_devinfo, "hca_id: bnxt_re0\n\tphys_port_cnt: 1\n", "phys_port_cnt is 1 but 0 port sections")


def test_ibv_devices_with_zero_guids(output) -> None:
    devices = parse_ibv_devices(output("ibv-devices", "sriov_device_plugin_issue20_server.txt"))
    assert [(d.name, d.guid_is_zero) for d in devices] == [
        ("mlx5_2", True), ("mlx5_0", False), ("mlx5_3", True), ("mlx5_1", False)]
    assert devices[1].node_guid == "506b4b0300285028"


def test_ibv_devices_document_sample(output) -> None:
    (device,) = parse_ibv_devices(output("ibv-devices", "s3_one_device.txt"))
    assert device.name == "bnxt\\_re0"  # the document's Markdown escape, kept as printed
    assert device.node_guid == "be97e1fffeda96d0" and not device.guid_is_zero


def test_ibv_devices_header_only(output) -> None:
    assert parse_ibv_devices(output("ibv-devices", "rxe_dev_issue75_no_device.txt")) == ()


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
    assert [(d.name, d.node_guid) for d in parse_ibv_devices(text)] == [("bnxt_re0", "be97e1fffeda96d0")]
