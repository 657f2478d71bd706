"""NCCL_DEBUG=INFO parser on the S0 example lines and on captured NCCL 2.28 runs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.nccl_debug import (
    all_network_channels_use_gdrdma,
    channels_without_gdrdma,
    network_channels,
    parse_nccl_debug,
)
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]


def test_registered() -> None:
    assert PARSERS.get("nccl-debug").func is parse_nccl_debug


def test_s0_gdrdma_channels(output: Output) -> None:
    info = parse_nccl_debug(output("nccl-debug", "s0-8.7.3.3-channels-gdrdma.txt")).facts
    first, second = info.channels
    assert (first.channel, first.source_rank, first.source_device, first.target_rank, first.target_device) == (
        0, 15, "e6000", 0, "1c000")
    assert (first.direction, first.transport, first.kind, first.net_device) == (
        "receive", "NET/IB/0/GDRDMA", "net_ib_gdrdma", 0)
    assert (second.direction, second.net_device) == ("send", 6)
    assert all_network_channels_use_gdrdma(info) is True


def test_s0_channel_without_gdrdma(output: Output) -> None:
    info = parse_nccl_debug(output("nccl-debug", "s0-8.7.3.3-channels-net-ib-without-gdrdma.txt")).facts
    [channel] = channels_without_gdrdma(info)
    assert (channel.transport, channel.kind, channel.source_rank, channel.target_rank) == ("NET/IB/0", "net_ib", 10, 1)
    assert all_network_channels_use_gdrdma(info) is False


def test_mixed_lines_report_only_the_plain_ones(output: Output) -> None:
    text = output("nccl-debug", "s0-8.7.3.3-channels-gdrdma.txt") + output(
        "nccl-debug", "s0-8.7.3.3-channels-net-ib-without-gdrdma.txt")
    info = parse_nccl_debug(text).facts
    assert [c.transport for c in channels_without_gdrdma(info)] == ["NET/IB/0"]
    assert len(network_channels(info)) == 3


def test_socket_channels_are_not_gdrdma(output: Output) -> None:
    info = parse_nccl_debug(output("nccl-debug", "h200x2-mpirun-p2p-shm-disabled-nccl-debug-info.txt")).facts
    assert {c.kind for c in info.channels} == {"net_socket"}
    assert {c.transport for c in info.channels} == {"NET/Socket/0"}
    assert len(channels_without_gdrdma(info)) == 8
    assert all_network_channels_use_gdrdma(info) is False


@pytest.mark.parametrize(("name", "transport"), [
    ("h200x2-all_reduce_perf-nccl-debug-info.txt", "P2P/direct pointer"),
    ("h200x2-mpirun-all_reduce_perf-nccl-debug-info.txt", "P2P/CUMEM"),
], ids=["one-process", "mpirun"])
def test_intra_node_p2p_channels(output: Output, name: str, transport: str) -> None:
    info = parse_nccl_debug(output("nccl-debug", name)).facts
    assert info.nccl_version == "2.28.3+cuda13.0"
    assert len(info.channels) == 48
    assert {(c.kind, c.transport) for c in info.channels} == {("p2p", transport)}
    assert {(c.source_rank, c.target_rank) for c in info.channels} == {(0, 1), (1, 0)}
    assert network_channels(info) == ()
    assert all_network_channels_use_gdrdma(info) is None


def test_no_rdma_device_reported(output: Output) -> None:
    info = parse_nccl_debug(output("nccl-debug", "h200x2-all_reduce_perf-nccl-debug-info.txt")).facts
    assert info.ib_no_device is True
    assert info.ib_devices == ()
    assert info.socket_interfaces == ("eth0",)
    assert info.warnings == ()


def test_bootstrap_only_line(output: Output) -> None:
    info = parse_nccl_debug(output("nccl-debug", "s0-8.7.3-bootstrap-line.txt")).facts
    assert info.channels == () and info.nccl_version is None


def test_net_ib_device_list_layout(output: Output) -> None:
    # The "Using [RO]; OOB ..." line is real (captured); the device entries follow NCCL's
    # [index]device:port/link layout, as RDMA hosts print it (no RDMA host was available for a capture).
    real = output("nccl-debug", "h200x2-all_reduce_perf-nccl-debug-info.txt")
    line = next(line for line in real.splitlines() if "NET/IB : Using [RO]" in line)
    with_devices = line.replace("Using [RO]", "Using [0]bnxt_re0:1/RoCE [1]bnxt_re1:1/RoCE [RO]")
    info = parse_nccl_debug(with_devices + "\n").facts
    assert [(d.index, d.name, d.port, d.link) for d in info.ib_devices] == [
        (0, "bnxt_re0", 1, "RoCE"), (1, "bnxt_re1", 1, "RoCE")]


def test_warn_lines_kept(output: Output) -> None:
    real = output("nccl-debug", "s0-8.7.3-bootstrap-line.txt")
    info = parse_nccl_debug(real.replace("NCCL INFO", "NCCL WARN")).facts
    assert info.warnings == ("Bootstrap : Using eno8303:10.77.69.182<0>",)


@pytest.mark.parametrize("name", ["h200x2-all_reduce_perf-8-1g.txt", "s4-rccl-all_reduce-1node-8gpu-mi350x.txt"],
                         ids=["nccl-tests-without-debug", "rccl-tests-without-debug"])
def test_output_without_nccl_lines(output: Output, parse_error: Callable[..., ParseError], name: str) -> None:
    parse_error(parse_nccl_debug, output("nccl-tests", name), "no 'NCCL INFO'", "NCCL_DEBUG=INFO")


@given(text=st.lists(st.sampled_from(list("0123456789[]:/->. \n") + [
    "NCCL INFO ", "NCCL WARN ", "Channel ", " via ", "NET/IB/", "GDRDMA", "NET/Socket/", "P2P/IPC", " comm 0x1f",
    "NET/IB : Using ", "NCCL version "]), max_size=60).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_nccl_debug(text).facts
    except ParseError:
        pass
