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
    convert_bw,
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

WRITE_LAT = "rxe-ib_write_lat-all-sizes.txt"  # real perftest 6.06 runs over Soft-RoCE, see SOURCES.md
DASHES = "-" * 87


def test_registered() -> None:
    assert PARSERS.get("perftest").func is parse_perftest


def test_s0_rocm_bidirectional_header_facts(output: Output) -> None:
    result = parse_perftest(output("perftest", S0_ROCM)).facts
    assert result.test == "RDMA_Write Bidirectional BW Test"
    assert result.bidirectional is True
    assert (result.kind, result.bw_unit) == ("bw", "Gb/sec")
    assert (result.device, result.num_qps, result.mtu_bytes) == ("bnxt_re4", 4, 4096)
    assert (result.link_type, result.gid_index, result.transport, result.connection) == ("Ethernet", 3, "IB", "RC")
    assert result.setting("Use ROCm memory") == "ON"
    assert result.setting("No such field") is None
    assert result.errors == ()


def test_s0_rocm_gpu_memory_line(output: Output) -> None:
    gpu = parse_perftest(output("perftest", S0_ROCM)).facts.gpu_memory
    assert gpu is not None
    assert (gpu.runtime, gpu.device_id, gpu.name, gpu.pci_bus_id) == ("ROCm", 4, "AMD Instinct MI300X", "0x9e")
    assert gpu.allocated_bytes == 67108864


def test_s0_rocm_rows(output: Output) -> None:
    rows = parse_perftest(output("perftest", S0_ROCM)).facts.bandwidth_rows
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
    result = parse_perftest(output("perftest", name)).facts
    assert max_average_bw(result) == expected_max
    assert average_bw_at(result, 8388608) == at_8m


def test_criterion_700_gbps_at_some_point_s0(output: Output) -> None:
    # S0 2.8 / S4: average >= 700 Gb/s at some message size; the 65536-byte dip (444.06) does not matter.
    result = parse_perftest(output("perftest", S0_ROCM)).facts
    assert average_bw_at(result, 65536) == 444.06
    assert max_average_bw(result) >= 700


def test_units_converted_exactly(output: Output) -> None:
    # perftest's MB/sec and MiB/sec are 2^20 bytes/s, its Gb/sec 10^9 bits/s (perftest_parameters.c format_factor).
    result = parse_perftest(output("perftest", S2_D2D)).facts
    gbits = max_average_bw(result)
    assert max_average_bw(result, unit="MiB/sec") == gbits * 10**9 / 8 / 1048576
    assert max_average_bw(result, unit="MB/sec") == max_average_bw(result, unit="MiB/sec")
    assert convert_bw(1.0, "MiB/sec", "Gb/sec") == 0.008388608
    with pytest.raises(MeasurementMissing, match="cannot be converted"):
        convert_bw(1.0, "MiB/sec", "furlongs")


def test_size_not_measured(output: Output) -> None:
    with pytest.raises(MeasurementMissing, match="no row for 3 bytes"):
        average_bw_at(parse_perftest(output("perftest", S0_ROCM)).facts, 3)


def test_s2_without_gpu_line_has_no_gpu_memory(output: Output) -> None:
    result = parse_perftest(output("perftest", S2_D2D)).facts
    assert result.gpu_memory is None
    assert uses_gpu_memory(result) is False
    assert uses_gpu_memory(parse_perftest(output("perftest", S0_ROCM)).facts) is True


def test_failed_status_12(output: Output) -> None:
    result = parse_perftest(output("perftest", S0_STATUS_12)).facts
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
    result = parse_perftest(output("perftest", name)).facts
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
    result = parse_perftest(header + line + "\n").facts
    assert [error.kind for error in result.errors] == [kind]


def test_ocr_damaged_rows_are_unread_and_the_table_incomplete(output: Output, unread_line) -> None:
    """S1's OCR split numbers ('77 .83'): those rows are unread, never shifted; the table is not complete, so its
    highest average is not known; a size whose row was read keeps its value."""
    parsed = parse_perftest(output("perftest", "s1-ib_send_bw-h100-thor2-ocr-damaged.txt"))
    unread_line(parsed, "2048 4000 77 .83 77 .75 4.745431", "expected 5 columns, found 7")
    assert 2048 not in [row.bytes for row in parsed.facts.bandwidth_rows] and not parsed.facts.complete
    with pytest.raises(MeasurementMissing, match="highest average is not known"):
        max_average_bw(parsed.facts)


@pytest.mark.parametrize(("name", "size", "cell", "reason"), [
    pytest.param(S0_ROCM, "65536", "1.2.3", "BW peak: expected a number, found '1.2.3'", id="bw-two-dots"),
    pytest.param(S0_ROCM, "65536", ".", "BW peak: expected a number, found '.'", id="bw-dot-only"),
    pytest.param(WRITE_LAT, "1024", "1..5", "t_min[usec]: expected a number, found '1..5'", id="lat-two-dots"),
])
def test_a_cell_of_digits_and_dots_that_is_no_number_is_unread(output: Output, unread_line, name: str, size: str,
                                                                cell: str, reason: str) -> None:
    """A table's rows are read in one search when every cell is of digits and dots; a cell of that form that is
    no number ('1.2.3') sends the table to the row-by-row reading: that row unread, the others read."""
    text = output("perftest", name)
    row = next(line for line in text.splitlines() if line.split()[:1] == [size])
    cells = row.split()
    parsed = parse_perftest(text.replace(row, row.replace(f" {cells[2]} ", f" {cell} ", 1)))
    unread_line(parsed, reason)
    facts = parsed.facts
    read = [r.bytes for r in (*facts.bandwidth_rows, *facts.latency_rows)]
    assert int(size) not in read and len(read) == 22 and not facts.complete


def test_cut_inside_a_row(output: Output, unread_line) -> None:
    text = output("perftest", S0_ROCM)
    parsed = parse_perftest(text[: text.index(" 131072     20000") + 24])
    unread_line(parsed, "131072", "the output ends inside this line")
    assert parsed.facts.bandwidth_rows[-1].bytes == 65536 and not parsed.facts.complete
    assert average_bw_at(parsed.facts, 65536) == parsed.facts.bandwidth_rows[-1].bw_average


def test_cut_between_rows(output: Output) -> None:
    text = output("perftest", S0_ROCM)
    result = parse_perftest(text[: text.index(" 131072     20000")]).facts
    assert result.bandwidth_rows[-1].bytes == 65536 and not result.complete
    with pytest.raises(MeasurementMissing, match="cut short"):
        max_average_bw(result)
    with pytest.raises(MeasurementMissing, match="no row for 131072 bytes"):
        average_bw_at(result, 131072)


def test_cut_before_the_table(output: Output) -> None:
    text = output("perftest", S2_D2D)
    result = parse_perftest(text[: text.index("local address")]).facts
    assert result.kind is None and result.test == "RDMA_Write Bidirectional BW Test"
    with pytest.raises(MeasurementMissing, match="no bandwidth table"):
        max_average_bw(result)


def test_table_without_rows(output: Output) -> None:
    text = output("perftest", S2_D2D)
    head = text[: text.index("   2          5000")]
    result = parse_perftest(head + "   " + DASHES + "\n").facts
    assert result.kind == "bw" and result.bandwidth_rows == ()
    with pytest.raises(MeasurementMissing, match="no bandwidth table"):
        max_average_bw(result)


def test_a_third_table_is_unread(output: Output, unread_line) -> None:
    text = output("perftest", S2_D2D)
    parsed = parse_perftest(text + text + text)
    unread_line(parsed, "#bytes", "more result tables than the two sides")
    assert parsed.facts.sides == 2 and parsed.facts.bandwidth_rows == parse_perftest(text).facts.bandwidth_rows


def test_two_tables_of_different_runs_are_read_from_neither(output: Output, unread_line) -> None:
    text = output("perftest", S2_D2D)
    parsed = parse_perftest(text + text.replace("   2          5000", "   3          5000"))
    unread_line(parsed, "5000", "sizes differ", "not the two sides of one run")
    assert parsed.facts.bandwidth_rows == () and not parsed.facts.complete


def test_a_table_of_another_unit_is_unread(output: Output, unread_line) -> None:
    text = output("perftest", "rxe-ib_write_bw-all-sizes-gbits.txt")
    parsed = parse_perftest(text + output("perftest", "rxe-ib_write_bw-all-sizes-mbsec.txt"))
    unread_line(parsed, "BW peak[MB/sec]", "more result tables")
    assert parsed.facts.bw_unit == "Gb/sec" and parsed.facts.bandwidth_rows == parse_perftest(text).facts.bandwidth_rows


@pytest.mark.parametrize("text", ["", "  \n", "hello world\n"], ids=["empty", "blank", "unrelated"])
def test_not_perftest(text: str) -> None:
    with pytest.raises(ParseError):
        parse_perftest(text).facts


@pytest.mark.parametrize(("name", "test", "rows", "first", "last_typical"), [
    pytest.param(WRITE_LAT, "RDMA_Write Latency Test", 23, (2, 100, 19.66, 260.74, 20.45, 23.56, 14.04, 260.74, 260.74),
                 153030.95, id="ib_write_lat-a"),
    pytest.param("rxe-ib_write_lat-all-sizes-server.txt", "RDMA_Write Latency Test", 23,
                 (2, 100, 19.68, 243.64, 20.43, 24.69, 18.95, 243.64, 243.64), 152420.64, id="ib_write_lat-a-server"),
    pytest.param("rxe-ib_send_lat-all-sizes.txt", "Send Latency Test", 23,
                 (2, 100, 19.1, 248.86, 19.9, 21.51, 8.68, 248.86, 248.86), 145385.32, id="ib_send_lat-a"),
    pytest.param("rxe-ib_read_lat.txt", "RDMA_Read Latency Test", 1,
                 (2, 1000, 35.74, 483.11, 36.95, 39.18, 15.47, 108.09, 483.11), 36.95, id="ib_read_lat-one-size"),
])
def test_latency_tables(output: Output, name: str, test: str, rows: int, first: tuple[float, ...],
                        last_typical: float) -> None:
    result = parse_perftest(output("perftest", name)).facts
    assert (result.test, result.kind, result.bw_unit, result.errors) == (test, "lat", None, ())
    assert (result.link_type, result.gid_index, result.mtu_bytes) == ("Ethernet", 1, 4096)
    assert len(result.latency_rows) == rows
    row = result.latency_rows[0]
    assert (row.bytes, row.iterations, row.t_min, row.t_max, row.t_typical, row.t_avg, row.t_stdev, row.p99,
            row.p99_9) == first
    assert typical_latency_us(result) == first[4]
    assert result.latency_rows[-1].t_typical == last_typical


def test_latency_at_a_size(output: Output) -> None:
    result = parse_perftest(output("perftest", WRITE_LAT)).facts
    assert typical_latency_us(result, 65536) == 849.91
    with pytest.raises(MeasurementMissing, match="no latency row for 3 bytes"):
        typical_latency_us(result, 3)
    with pytest.raises(MeasurementMissing, match="no bandwidth table"):
        max_average_bw(result)


def test_read_latency_server_prints_no_table(output: Output) -> None:
    """A read-latency server prints its header and no table: the header is read, no latency is."""
    result = parse_perftest(output("perftest", "rxe-ib_read_lat-server.txt")).facts
    assert (result.test, result.device, result.kind) == ("RDMA_Read Latency Test", "rxe_b", None)
    with pytest.raises(MeasurementMissing, match="no latency row"):
        typical_latency_us(result)


def test_latency_row_not_matching_header_is_unread(output: Output, unread_line) -> None:
    text = output("perftest", WRITE_LAT)
    row = text.splitlines()[21]
    parsed = parse_perftest(text.replace(row, row + "   3.00"))
    unread_line(parsed, "expected 9 columns, found 10")
    assert int(row.split()[0]) not in [r.bytes for r in parsed.facts.latency_rows] and not parsed.facts.complete


def test_older_short_latency_header_leaves_columns_empty(output: Output) -> None:
    # perftest releases before the percentile columns printed t_min, t_max and t_typical only.
    text = output("perftest", "rxe-ib_read_lat.txt")
    lines = text.splitlines(keepends=True)
    header = next(index for index, line in enumerate(lines) if "t_min[usec]" in line)
    lines[header] = lines[header][: lines[header].index("t_avg")] + "\n"
    lines[header + 1] = " ".join(lines[header + 1].split()[:5]) + "\n"
    [row] = parse_perftest("".join(lines)).facts.latency_rows
    assert (row.t_typical, row.t_avg, row.p99) == (36.95, None, None)


@pytest.mark.parametrize(("name", "bidirectional", "qps", "rows", "largest"), [
    pytest.param("rxe-ib_write_bw-all-sizes-mbsec.txt", False, 1, 23, (8388608, 72.61, 72.61), id="write-a-mbsec"),
    pytest.param("rxe-ib_read_bw-mbsec.txt", False, 1, 1, (65536, 79.8, 78.98), id="read-one-size-mbsec"),
    pytest.param("rxe-ib_send_bw-bidirectional-all-sizes-mbsec.txt", True, 1, 23, (8388608, 116.96, 98.32),
                 id="send-b-a-mbsec"),
    pytest.param("rxe-ib_send_bw-bidirectional-all-sizes-mbsec-server.txt", True, 1, 23, (8388608, 116.96, 98.32),
                 id="send-b-a-mbsec-server"),
])
def test_mbsec_tables(output: Output, name: str, bidirectional: bool, qps: int, rows: int,
                      largest: tuple[int, float, float]) -> None:
    result = parse_perftest(output("perftest", name)).facts
    assert (result.kind, result.bw_unit, result.bidirectional, result.num_qps) == ("bw", "MB/sec", bidirectional, qps)
    assert len(result.bandwidth_rows) == rows
    last = result.bandwidth_rows[-1]
    assert (last.bytes, last.bw_peak, last.bw_average) == largest
    assert max_average_bw(result, unit="MB/sec") == max(row.bw_average for row in result.bandwidth_rows)
    assert max_average_bw(result) == max(row.bw_average for row in result.bandwidth_rows) * 1048576 * 8 / 10**9


@pytest.mark.parametrize(("name", "bidirectional", "qps", "rows", "average"), [
    pytest.param("rxe-ib_write_bw-all-sizes-gbits.txt", False, 1, 23, 0.76, id="write-a-unidirectional"),
    pytest.param("rxe-ib_write_bw-bidirectional-q4-gbits.txt", True, 4, 1, 1.42, id="write-b-q4-one-size"),
    pytest.param("rxe-ib_write_bw-duration-gbits.txt", False, 1, 1, 0.73, id="write-D3-duration"),
])
def test_gbits_tables(output: Output, name: str, bidirectional: bool, qps: int, rows: int, average: float) -> None:
    result = parse_perftest(output("perftest", name)).facts
    assert (result.bw_unit, result.bidirectional, result.num_qps) == ("Gb/sec", bidirectional, qps)
    assert len(result.bandwidth_rows) == rows
    assert max_average_bw(result) == average


def test_duration_run_reports_no_peak(output: Output) -> None:
    [row] = parse_perftest(output("perftest", "rxe-ib_write_bw-duration-gbits.txt")).facts.bandwidth_rows
    assert (row.bytes, row.iterations, row.bw_peak, row.bw_average) == (65536, 4192, 0.0, 0.73)


def test_interrupted_run_infinitely_is_incomplete(output: Output) -> None:
    """--run_infinitely prints one row a second until interrupted, never the closing line: each row is read, the
    table is not complete."""
    result = parse_perftest(output("perftest", "rxe-ib_write_bw-run-infinitely-interrupted.txt")).facts
    assert result.bandwidth_rows and not result.complete
    with pytest.raises(MeasurementMissing, match="cut short"):
        max_average_bw(result)


@pytest.mark.parametrize(("name", "kind", "line"), [
    pytest.param("rxe-ib_write_bw-port-clash-server.txt", "port_in_use", "Couldn't listen to port 18600",
                 id="port-clash"),
    pytest.param("rxe-ib_write_bw-port-clash-server-line-buffered.txt", "port_in_use", "Couldn't listen to port 18600",
                 id="port-clash-line-buffered"),
    pytest.param("rxe-ib_write_bw-no-server.txt", "connection", "Couldn't connect to 10.77.0.2:18601", id="no-server"),
    pytest.param("rxe-ib_write_bw-no-such-device.txt", "no_device", "IB device bnxt_re0 not found", id="no-device"),
    pytest.param("rxe-ib_write_bw-gid-index-3-missing.txt", "failure", "Failed to modify QP 32 to RTR",
                 id="gid-index-missing"),
    pytest.param("rxe-ib_write_bw-gid-index-3-missing-server-line-buffered.txt", "failure",
                 "Failed to modify QP 31 to RTR", id="gid-index-missing-server"),
])
def test_real_failures_are_facts(output: Output, name: str, kind: str, line: str) -> None:
    result = parse_perftest(output("perftest", name)).facts
    error = primary_error(result)
    assert error is not None and (error.kind, error.line) == (kind, line)
    assert result.failed and result.bandwidth_rows == ()
    with pytest.raises(MeasurementMissing, match=kind):
        max_average_bw(result)


@given(text=st.lists(st.sampled_from(list("0123456789.:- \n#[]") + [
    " #bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]\n", "-" * 30 + "\n",
    "RDMA_Write BW Test\n", "Failed status 12: wr_id 0 syndrom 0xa\n", " Mtu : x\n"]), max_size=60).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_perftest(text).facts
    except ParseError:
        pass


def test_facts_are_plain_data_for_xdist(output: Output) -> None:
    import json

    from pytest_gpufabric.parsers.registry import to_plain

    plain = json.loads(json.dumps(to_plain(parse_perftest(output("perftest", S0_STATUS_12)).facts)))
    assert plain["errors"][1] == {"kind": "completion", "line": "Failed status 12: wr_id 0 syndrom 0xa",
                                  "status": 12, "syndrome": "0xa"}


LOOPBACK = "azure-hbv3-ib_write_bw-loopback-both-sides-mibsec.txt"
MI355X_ROCM = "mi355x-ionic-ib_write_bw-rocm-both-sides-mibsec.txt"
MI355X_BIDIR = "mi355x-ionic-ib_write_bw-bidirectional-q4-both-sides-gbits.txt"


@pytest.mark.parametrize(("name", "test", "size", "average", "gbits"), [
    pytest.param(LOOPBACK, "RDMA_Write BW Test", 1000, 4020.54, 4020.54 * 0.008388608, id="loopback"),
    pytest.param(MI355X_ROCM, "RDMA_Write BW Test", 8192, 19871.68, 19871.68 * 0.008388608, id="mi355x-rocm"),
])
def test_mib_tables(output: Output, name: str, test: str, size: int, average: float, gbits: float) -> None:
    result = parse_perftest(output("perftest", name)).facts
    assert (result.test, result.kind, result.bw_unit) == (test, "bw", "MiB/sec")
    assert average_bw_at(result, size, unit="MiB/sec") == average
    assert average_bw_at(result, size) == pytest.approx(gbits, rel=1e-15)


def test_both_sides_in_one_capture(output: Output) -> None:
    result = parse_perftest(output("perftest", LOOPBACK)).facts
    assert result.sides == 2
    assert [(row.bytes, row.bw_average) for row in result.bandwidth_rows] == [(1000, 4020.54)]
    assert (result.device, result.num_qps, result.mtu_bytes, result.link_type) == ("mlx5_ib0", 1, 4096, "IB")


def test_both_sides_keep_the_worse_average(output: Output) -> None:
    text = output("perftest", LOOPBACK)
    last = text.rindex(" 1000       5000             4104.91            4020.54")
    result = parse_perftest(text[:last] + text[last:].replace("4020.54", "3999.99", 1)).facts
    assert [row.bw_average for row in result.bandwidth_rows] == [3999.99]


def test_mib_excerpt_cut_by_its_author(output: Output, unread_line) -> None:
    """The notes' author cut the table with '....': the rows quoted are read, the table is not complete."""
    parsed = parse_perftest(output("perftest", "azure-hbv3-ib_send_bw-mibsec-server-excerpt-cut.txt"))
    assert parsed.facts.bw_unit == "MiB/sec" and parsed.facts.bandwidth_rows and not parsed.facts.complete
    unread_line(parsed, "....")


def test_server_of_a_one_way_run_over_all_sizes_prints_the_last_size_only(output: Output) -> None:
    result = parse_perftest(output("perftest", MI355X_ROCM)).facts
    assert (result.sides, len(result.bandwidth_rows), result.device, result.num_qps) == (2, 23, "ionic_0", 1)
    assert [row.bytes for row in result.bandwidth_rows] == [2 ** exponent for exponent in range(1, 24)]
    assert result.bandwidth_rows[-1].bw_average == 19044.43
    assert result.gpu_memory is not None and result.gpu_memory.name == "AMD Instinct MI355X"


def test_both_sides_of_a_bidirectional_run_pasted_one_after_the_other(output: Output) -> None:
    result = parse_perftest(output("perftest", MI355X_BIDIR)).facts
    assert (result.test, result.bidirectional, result.bw_unit, result.sides) == (
        "RDMA_Write Bidirectional BW Test", True, "Gb/sec", 2)
    assert (result.device, result.num_qps, len(result.bandwidth_rows)) == ("ionic_7", 4, 23)
    assert max_average_bw(result) == 779.21


def test_a_server_size_the_client_never_printed_refuses_both_tables(output: Output, unread_line) -> None:
    text = output("perftest", MI355X_ROCM)
    server_row = " 8388608    5000             19044.44"
    parsed = parse_perftest(text.replace(server_row, " 8388609    5000             19044.44", 1))
    unread_line(parsed, "8388609", "sizes differ", "not the two sides of one run")
    assert parsed.facts.bandwidth_rows == ()
