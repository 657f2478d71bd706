"""The fallbacks' parsers on real outputs: ``ibstatus``, ``show_gids``, /sys/class/infiniband port files, /proc/<pid>/comm, ufw.conf."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.ibstatus import parse_ibstatus
from pytest_gpufabric.parsers.ibverbs import parse_ibv_devinfo
from pytest_gpufabric.parsers.proc_comm import parse_proc_comm
from pytest_gpufabric.parsers.show_gids import parse_show_gids
from pytest_gpufabric.parsers.sysfs_infiniband import parse_sysfs_infiniband
from pytest_gpufabric.parsers.ufw_conf import parse_ufw_conf

NCCL_1866 = "nccl_issue1866_two_roce_ports.txt"
NCCL_1935 = "nccl_issue1935_down_ports_tabs.txt"
MULTUS = "multus_issue1100_pod_gids_4_5.txt"
NCCL_TESTS_192 = "nccl_tests_issue192_two_nics_cut.txt"
SLURM = "slurm_appliance_pr988_two_ports.txt"


def test_ibstatus_roce_ports(output) -> None:
    ports = parse_ibstatus(output("ibstatus", NCCL_1866)).facts
    assert [(p.device, p.port, p.state, p.physical_state, p.rate_gbps, p.link_layer) for p in ports] == [
        ("mlx5_0", 1, "ACTIVE", "LinkUp", 100.0, "Ethernet"), ("mlx5_1", 1, "ACTIVE", "LinkUp", 100.0, "Ethernet")]
    assert ports[1].default_gid == "fe80:0000:0000:0000:8ae9:a4ff:fe9c:7f1b"


def test_ibstatus_tab_separated_down_ports(output) -> None:
    ports = parse_ibstatus(output("ibstatus", NCCL_1935)).facts
    assert [p.device for p in ports] == ["mlx5_11", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"]
    assert {(p.state, p.physical_state) for p in ports} == {("DOWN", "Disabled")}
    assert (ports[1].rate_gbps, ports[1].link_layer) == (40.0, "Ethernet")


@pytest.mark.parametrize("cut", [
    "\tphys state:",
    "\tstate:\t\t 1: DOWN\n\tphys state:\t 3: Disabled\n\trate:\t\t 10 Gb/sec (4X SDR)\n\tlink_layer:\t InfiniBand\n",
], ids=["cut-inside-a-block", "cut-before-state"])
def test_ibstatus_cut_short(output, cut: str) -> None:
    """A port cut before its state lines has no state (None: the check says "not measured"); the ports before it
    are whole."""
    text = output("ibstatus", NCCL_1935)
    ports = parse_ibstatus(text[: text.rindex(cut)]).facts
    assert ports[-1].device == "mlx5_5" and ports[-1].physical_state is None
    assert ports[-2].physical_state == "Disabled"


def test_ibstatus_without_its_device_line(output, unread_line) -> None:
    text = output("ibstatus", NCCL_1866)
    parsed = parse_ibstatus(text[text.index("\n") + 1 :])
    assert [p.device for p in parsed.facts] == ["mlx5_1"]
    unread_line(parsed, "default gid", "expected \"Infiniband device '<dev>' port <n> status:\"")


def test_ibstatus_state_without_its_code(output, unread_line) -> None:
    parsed = parse_ibstatus(output("ibstatus", NCCL_1866).replace("4: ACTIVE", "ACTIVE", 1))
    unread_line(parsed, "state 'ACTIVE' is not '<code>: <name>'")
    assert [p.state for p in parsed.facts] == [None, "ACTIVE"] and parsed.facts[0].physical_state == "LinkUp"


def test_show_gids_roce_v2_entry_of_a_pod(output) -> None:
    table = parse_show_gids(output("show-gids", MULTUS)).facts
    entry = table.get("mlx5_4", 1, 5)
    assert (entry.gid, entry.ipv4, entry.version, entry.roce_type, entry.netdev) == (
        "0000:0000:0000:0000:0000:ffff:ac14:0101", "172.20.1.1", "v2", "RoCE v2", "net1")
    assert table.get("mlx5_4", 1, 3) is None  # the pod's GIDs start at index 4


def test_show_gids_space_aligned_and_indented(output) -> None:
    table = parse_show_gids(output("show-gids", NCCL_TESTS_192)).facts
    assert len(table.entries) == 8
    third = table.get("mlx5_1", 1, 3)
    assert (third.ipv4, third.version, third.netdev) == ("11.0.0.73", "v2", "ens2np0")
    assert table.get("mlx5_0", 1, 1).ipv4 is None  # a link-local GID has no IPv4 column


def test_show_gids_with_no_gid(output) -> None:
    assert parse_show_gids(output("show-gids", "k8s_rdma_sriov_issue30_no_gids.txt")).facts.entries == ()


def test_show_gids_count_is_read_as_printed(output) -> None:
    table = parse_show_gids(output("show-gids", "k8s_rdma_sriov_issue30_no_gids.txt").replace("n_gids_found=0", "n_gids_found=2")).facts
    assert table.declared == 2 and table.entries == ()


def test_show_gids_other_header_is_unread(output, parse_error) -> None:
    text = output("show-gids", "k8s_rdma_sriov_issue30_no_gids.txt").replace("DEV\tPORT", "NAME\tPORT")
    assert parse_show_gids(text).unread[0].line == 1


def test_show_gids_row_cut_inside_its_gid(output, unread_line) -> None:
    text = output("show-gids", MULTUS)
    parsed = parse_show_gids(text[: text.rindex(":ac14")])
    assert [e.index for e in parsed.facts.entries] == [4]
    unread_line(parsed, "mlx5_4", "the output ends inside this line")


def test_sysfs_port_files(output) -> None:
    ports = parse_sysfs_infiniband(output("sysfs-infiniband", SLURM)).facts
    port = ports.get("mlx5_1")
    assert (port.coded("state"), port.coded("phys_state"), port.attributes["rate"]) == ("ACTIVE", "LinkUp", "100 Gb/sec (4X EDR)")
    assert port.netdev is None and ports.get("mlx5_2") is None


def test_sysfs_no_rdma_device_is_no_output(output, parse_error) -> None:
    # grep prints its errors on stderr; stdout is empty: the caller tells 'no device' from the exit status and stderr
    parse_error(parse_sysfs_infiniband, "", "empty output")
    assert "No such file or directory" in output("sysfs-infiniband", "devhost_no_rdma_device_stderr.txt")


@pytest.mark.parametrize(("old", "new", "fragment"), [
    ("state:4: ACTIVE", "state:ACTIVE", "mlx5_0 port 1: state 'ACTIVE' is not '<code>: <name>'"),
    ("/sys/class/infiniband/mlx5_1/ports/1/rate:", "/sys/class/net/ib0/speed:", "expected '/sys/class/infiniband/<dev>/ports/<n>/<file>:<value>'"),
], ids=["state-without-code", "other-class"])
def test_sysfs_line_of_another_form_costs_only_its_value(output, unread_line, old: str, new: str, fragment: str) -> None:
    parsed = parse_sysfs_infiniband(output("sysfs-infiniband", SLURM).replace(old, new, 1))
    unread_line(parsed, fragment)
    assert parsed.facts.get("mlx5_0").coded("phys_state") == "LinkUp"


def test_sysfs_other_port_file_is_known(output) -> None:
    parsed = parse_sysfs_infiniband(output("sysfs-infiniband", SLURM).replace("ports/1/rate:", "ports/1/counters:", 1))
    assert parsed.unread == () and "rate" not in parsed.facts.get("mlx5_0").attributes


def test_ibv_devinfo_gid_lines_without_their_device_are_refused(output, parse_error) -> None:
    parse_error(parse_ibv_devinfo, output("ibv-devinfo", "nccl_issue769_gid_lines_only.txt"), "no 'hca_id:' device")


def test_process_names(output) -> None:
    names = parse_proc_comm(output("proc-comm", "devhost_container.txt")).facts
    assert {"bash", "kthreadd", "kswapd0"} <= names
    assert "kworker/0:0H-events_highpri" in names  # kernel workers carry their queue's name past 15 characters


def test_process_names_with_an_error_mixed_in(output, unread_line) -> None:
    """A process that ended while cat read the list: its error line is unread, the other names are read."""
    text = output("proc-comm", "devhost_container.txt") + "cat: /proc/4242/comm: No such file or directory\n"
    parsed = parse_proc_comm(text)
    assert {"bash", "kthreadd"} <= parsed.facts and not any(name.startswith("cat:") for name in parsed.facts)
    unread_line(parsed, "cat: /proc/4242/comm", "an error message among the process names")


def test_ufw_switch(output, parse_error, unread_line) -> None:
    text = output("ufw-conf", "debian12_ufw_0.36.2_default.txt")
    assert parse_ufw_conf(text).facts is False
    assert parse_ufw_conf(text.replace("ENABLED=no", "ENABLED=yes")).facts is True
    parse_error(parse_ufw_conf, text.replace("ENABLED=no", "ENABLED=maybe"), "ENABLED is 'maybe'")
    other = parse_ufw_conf(text.replace("LOGLEVEL=low", "LOGLEVEL low"))  # another setting damaged: ENABLED still read
    assert other.facts is False
    unread_line(other, "LOGLEVEL low", "expected '<NAME>=<value>'")
