"""perftest parser on real outputs (seed documents S0/S1/S2 and captures), truncations and damaged input."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import MeasurementMissing, ParseError
from pytest_gpufabric.parsers.perftest import (
    average_bw_at,
    completion_errors,
    max_average_bw,
    parse_perftest,
    primary_error,
    typical_latency_us,
    uses_gpu_memory,
)
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]
S0_ROCM = "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt"
S0_STATUS_12 = "s0-5.1-faq2-ib_write_bw-failed-status-12.txt"
S2_D2D = "s2-d2d-ib_write_bw-bidirectional-gbits.txt"

# The latency table layout as perftest prints it (column header string of perftest's latency report);
# no RDMA device was available to capture a real latency run, see fixtures/outputs/perftest/SOURCES.md.
LAT_HEADER = (" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]"
              "   99% percentile[usec]   99.9% percentile[usec] ")
DASHES = "-" * 87


def latency_output(rows: list[str], header: str = LAT_HEADER) -> str:
    return "\n".join([DASHES, "                    RDMA_Write Latency Test", " Device         : bnxt_re0",
                      DASHES, header, *rows, DASHES]) + "\n"


def test_registered() -> None:
    assert PARSERS.get("perftest").func is parse_perftest


def test_s0_rocm_bidirectional_header_facts(output: Output) -> None:
    result = parse_perftest(output("perftest", S0_ROCM))
    assert result.test == "RDMA_Write Bidirectional BW Test"
    assert result.bidirectional is True
    assert (result.kind, result.bw_unit) == ("bw", "Gb/sec")
    assert (result.device, result.num_qps, result.mtu_bytes) == ("bnxt_re4", 4, 4096)
    assert (result.link_type, result.gid_index, result.transport, result.connection) == ("Ethernet", 3, "IB", "RC")
    assert result.setting("Use ROCm memory") == "ON"
    assert result.setting("No such field") is None
    assert result.errors == ()


def test_s0_rocm_gpu_memory_line(output: Output) -> None:
    gpu = parse_perftest(output("perftest", S0_ROCM)).gpu_memory
    assert gpu is not None
    assert (gpu.runtime, gpu.device_id, gpu.name, gpu.pci_bus_id) == ("ROCm", 4, "AMD Instinct MI300X", "0x9e")
    assert gpu.allocated_bytes == 67108864


def test_s0_rocm_rows(output: Output) -> None:
    rows = parse_perftest(output("perftest", S0_ROCM)).bandwidth_rows
    assert len(rows) == 23
    assert [rows[0].bytes, rows[-1].bytes] == [2, 8388608]
    assert rows[0].bw_peak == pytest.approx(0.119718)
    assert (rows[-1].iterations, rows[-1].bw_peak, rows[-1].bw_average, rows[-1].msg_rate_mpps) == (
        20000, 775.17, 774.99, 0.011548)


@pytest.mark.parametrize(("name", "expected_max", "at_8m"), [
    pytest.param(S0_ROCM, 774.99, 774.99, id="s0-mi300x-thor2"),
    pytest.param(S2_D2D, 204.59, 204.59, id="s2-d2d"),
])
def test_max_average_bw(output: Output, name: str, expected_max: float, at_8m: float) -> None:
    result = parse_perftest(output("perftest", name))
    assert max_average_bw(result) == expected_max
    assert average_bw_at(result, 8388608) == at_8m


def test_criterion_700_gbps_at_some_point_s0(output: Output) -> None:
    # S0 2.8 / S4: average >= 700 Gb/s at some message size; the 65536-byte dip (444.06) does not matter.
    result = parse_perftest(output("perftest", S0_ROCM))
    assert average_bw_at(result, 65536) == 444.06
    assert max_average_bw(result) >= 700


def test_unit_mismatch_is_missing_not_converted(output: Output) -> None:
    result = parse_perftest(output("perftest", S2_D2D))
    with pytest.raises(MeasurementMissing, match="Gb/sec, expected MB/sec"):
        max_average_bw(result, unit="MB/sec")


def test_size_not_measured(output: Output) -> None:
    with pytest.raises(MeasurementMissing, match="no row for 3 bytes"):
        average_bw_at(parse_perftest(output("perftest", S0_ROCM)), 3)


def test_s2_without_gpu_line_has_no_gpu_memory(output: Output) -> None:
    result = parse_perftest(output("perftest", S2_D2D))
    assert result.gpu_memory is None
    assert uses_gpu_memory(result) is False
    assert uses_gpu_memory(parse_perftest(output("perftest", S0_ROCM))) is True


def test_failed_status_12(output: Output) -> None:
    result = parse_perftest(output("perftest", S0_STATUS_12))
    assert result.failed and result.kind is None and result.bandwidth_rows == ()
    assert result.device == "roceo3811"
    [error] = completion_errors(result)
    assert (error.status, error.syndrome, error.kind) == (12, "0xa", "completion")
    assert [e.kind for e in result.errors] == ["failure", "completion", "failure"]
    assert primary_error(result) == error
    with pytest.raises(MeasurementMissing, match="Failed status 12"):
        max_average_bw(result)


@pytest.mark.parametrize("name", ["ib_write_bw-no-rdma-device.txt", "ib_write_lat-no-rdma-device.txt"],
                         ids=["ib_write_bw", "ib_write_lat"])
def test_no_rdma_device(output: Output, name: str) -> None:
    result = parse_perftest(output("perftest", name))
    assert {error.kind for error in result.errors} == {"no_device"}
    assert result.test is None
    with pytest.raises(MeasurementMissing, match="no_device"):
        typical_latency_us(result)


@pytest.mark.parametrize(("line", "kind"), [
    pytest.param(" Failed status 12: wr_id 0 syndrom 0x81", "completion", id="status-12-syndrom-0x81"),
    pytest.param("Couldn't connect to 10.1.1.2:18515", "connection", id="couldnt-connect"),
    pytest.param(" Unable to init the socket connection", "connection", id="socket-init"),
    pytest.param(" Couldn't bind to port 18515", "port_in_use", id="bind"),
    pytest.param("port 18515 is already in use", "port_in_use", id="port-in-use"),
])
def test_error_lines_after_a_real_header(output: Output, line: str, kind: str) -> None:
    header = output("perftest", S0_STATUS_12).split(" Completion with error")[0]
    result = parse_perftest(header + line + "\n")
    assert [error.kind for error in result.errors] == [kind]


def test_ocr_damaged_table_is_refused(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_perftest, output("perftest", "s1-ib_send_bw-h100-thor2-ocr-damaged.txt"),
                "'2048 4000 77 .83 77 .75 4.745431'", "expected 5 columns, found 7")


def test_truncated_inside_a_row(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("perftest", S0_ROCM)
    cut = text[: text.index(" 131072     20000") + 24]
    parse_error(parse_perftest, cut, "expected 5 columns")


def test_truncated_between_rows(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("perftest", S0_ROCM)
    cut = text[: text.index(" 131072     20000")]
    parse_error(parse_perftest, cut, "not terminated")


def test_truncated_before_the_table(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("perftest", S2_D2D)
    parse_error(parse_perftest, text[: text.index("local address")], "neither a result table")


def test_table_without_rows(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("perftest", S2_D2D)
    head = text[: text.index("   2          5000")]
    parse_error(parse_perftest, head + "   " + DASHES + "\n", "no rows")


def test_two_tables_refused(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("perftest", S2_D2D)
    parse_error(parse_perftest, text + text, "two result tables")


@pytest.mark.parametrize("text", ["", "  \n", "hello world\n"], ids=["empty", "blank", "unrelated"])
def test_not_perftest(text: str) -> None:
    with pytest.raises(ParseError):
        parse_perftest(text)


# A latency row laid out like perftest's report (values chosen for the test, not measured).
LAT_ROW = " 2       1000          2.10           9.45         2.18               2.20             0.08            2.51                    9.45"


def test_latency_table_layout() -> None:
    result = parse_perftest(latency_output([LAT_ROW]))
    assert result.kind == "lat" and result.bw_unit is None
    [row] = result.latency_rows
    assert (row.bytes, row.iterations, row.t_min, row.t_max, row.t_typical) == (2, 1000, 2.10, 9.45, 2.18)
    assert (row.t_avg, row.t_stdev, row.p99, row.p99_9) == (2.20, 0.08, 2.51, 9.45)
    assert typical_latency_us(result) == 2.18
    assert typical_latency_us(result, 2) == 2.18
    with pytest.raises(MeasurementMissing, match="no latency row for 64 bytes"):
        typical_latency_us(result, 64)


def test_latency_table_skips_cpu_frequency_warning() -> None:
    warning = "Conflicting CPU frequency values detected: 3000.000000 != 1500.000000. CPU Frequency is not max."
    assert len(parse_perftest(latency_output([warning, LAT_ROW])).latency_rows) == 1


def test_latency_row_not_matching_header_refused(parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_perftest, latency_output([LAT_ROW + "   3.00"]), "expected 9 columns, found 10")


def test_short_latency_header_leaves_columns_empty() -> None:
    header = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
    result = parse_perftest(latency_output([" 2       1000          2.10           9.45          2.18"], header))
    [row] = result.latency_rows
    assert (row.t_typical, row.t_avg, row.p99) == (2.18, None, None)


@given(text=st.lists(st.sampled_from(list("0123456789.:- \n#[]") + [
    " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n", "-" * 30 + "\n",
    "RDMA_Write BW Test\n", "Failed status 12: wr_id 0 syndrom 0xa\n", " Mtu : x\n"]), max_size=60).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_perftest(text)
    except ParseError:
        pass


def test_facts_are_plain_data_for_xdist(output: Output) -> None:
    import json

    from pytest_gpufabric.parsers.registry import to_plain

    plain = json.loads(json.dumps(to_plain(parse_perftest(output("perftest", S0_STATUS_12)))))
    assert plain["errors"][1] == {"kind": "completion", "line": "Failed status 12: wr_id 0 syndrom 0xa",
                                  "status": 12, "syndrome": "0xa"}
