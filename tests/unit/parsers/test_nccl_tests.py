"""nccl-tests / rccl-tests parser on seed outputs (S0, S4, S1) and captures from a 2 x H200 machine."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import MeasurementMissing, ParseError
from pytest_gpufabric.parsers.nccl_tests import (
    any_wrong,
    busbw_at,
    busbw_at_largest,
    correctness_checked,
    parse_nccl_tests,
    parse_nccl_tests_json,
    rows_with_wrong_results,
)
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]
EIGHT_GB = 8589934592
S0_SINGLE = "s0-8.5.1-rccl-all_reduce-1node-8gpu.txt"
S4 = "s4-rccl-all_reduce-1node-8gpu-mi350x.txt"
H200_AR = "h200x2-all_reduce_perf-8-1g.txt"


def test_registered() -> None:
    assert PARSERS.get("nccl-tests").func is parse_nccl_tests
    assert PARSERS.get("nccl-tests-json").func is parse_nccl_tests_json


@pytest.mark.parametrize(("name", "ngpus", "ranks", "rows", "largest", "busbw_largest", "avg"), [
    pytest.param(S0_SINGLE, 8, 8, 32, 17179869184, 318.14, 109.341, id="s0-rccl-1node"),
    pytest.param("s0-8.7.2.2.1-rccl-all_reduce-4nodes-32proc-check-off.txt", 1, 32, 32, 17179869184, 328.06, 80.6921,
                 id="s0-rccl-4nodes-32proc"),
    pytest.param("s0-8.7.2.2.2-rccl-all_reduce-4nodes-4proc-check-off.txt", 8, 32, 32, 17179869184, 356.81, 97.2593,
                 id="s0-rccl-4nodes-4proc"),
    pytest.param("s0-8.7.2.1.1-rccl-alltoall-4nodes-32proc-check-off.txt", 1, 32, 32, 17179869184, 50.04, 16.0871,
                 id="s0-rccl-alltoall-32proc"),
    pytest.param(S4, 8, 8, 31, EIGHT_GB, 367.51, 111.827, id="s4-mi350x"),
    pytest.param(H200_AR, 2, 2, 28, 1073741824, 329.48, 87.0428, id="h200-1proc"),
    pytest.param("h200x2-mpirun-all_reduce_perf-8-4g.txt", 1, 2, 30, 4294967296, 345.27, 105.096, id="h200-mpirun"),
    pytest.param("h200x2-all_reduce_perf-2threads.txt", 1, 2, 24, 67108864, 269.96, 51.1312, id="h200-threads"),
])
def test_shape_and_largest(output: Output, name: str, ngpus: int, ranks: int, rows: int, largest: int,
                           busbw_largest: float, avg: float) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert result.ngpus == ngpus
    assert len(result.devices) == ranks
    assert len(result.rows) == rows
    assert busbw_at_largest(result) == (largest, busbw_largest)
    assert result.avg_busbw_gbs == avg
    assert (result.out_of_bounds, result.out_of_bounds_ok) == (0, True)
    assert not any_wrong(result)


def test_s4_in_place_busbw_at_8gb_meets_304(output: Output) -> None:
    # S4: "exceed an in-place busbw metric of 304 GB/s at a message size of 8 GB".
    result = parse_nccl_tests(output("nccl-tests", S4)).facts
    assert busbw_at(result, EIGHT_GB) == 367.51
    assert busbw_at(result, EIGHT_GB, in_place=False) == 360.97


def test_s0_in_place_busbw_at_8gb(output: Output) -> None:
    assert busbw_at(parse_nccl_tests(output("nccl-tests", S0_SINGLE)).facts, EIGHT_GB) == 320.66


def test_size_not_measured_is_missing(output: Output) -> None:
    with pytest.raises(MeasurementMissing, match="no row for 8589934592 bytes"):
        busbw_at(parse_nccl_tests(output("nccl-tests", H200_AR)).facts, EIGHT_GB)


def test_run_line_and_versions_new_format(output: Output) -> None:
    result = parse_nccl_tests(output("nccl-tests", H200_AR)).facts
    assert (result.collective, result.tests_version) == ("all_reduce_perf", "2.19.6")
    assert (result.nthreads, result.min_bytes, result.max_bytes, result.validation) == (1, 8, 1073741824, True)
    assert result.nccl_version is None


def test_rank_lines_new_format(output: Output) -> None:
    devices = parse_nccl_tests(output("nccl-tests", "h200x2-mpirun-all_reduce_perf-8-4g.txt")).facts.devices
    assert [(d.rank, d.group, d.host, d.device, d.bus_id, d.name) for d in devices] == [
        (0, 0, "vm", 0, "0000:00:06", "NVIDIA H200"), (1, 0, "vm", 1, "0000:00:07", "NVIDIA H200")]
    assert devices[0].pid != devices[1].pid


def test_rank_lines_old_format_without_group(output: Output) -> None:
    result = parse_nccl_tests(output("nccl-tests", "s0-8.7.2.2.1-rccl-all_reduce-4nodes-32proc-check-off.txt")).facts
    assert result.tests_version == "develop:77ae744"
    first, last = result.devices[0], result.devices[-1]
    assert (first.rank, first.group, first.pid, first.host, first.bus_id) == (0, None, 14767, "irvine-waco1",
                                                                              "0000:1b:00.0")
    assert (last.rank, last.host, last.name) == (31, "irvine-waco4", "AMD Instinct MI300X")
    assert len({d.host for d in result.devices}) == 4


def test_row_fields(output: Output) -> None:
    row = parse_nccl_tests(output("nccl-tests", S0_SINGLE)).facts.rows[-1]
    assert (row.size_bytes, row.count, row.datatype, row.redop, row.root) == (17179869184, 4294967296, "float",
                                                                                "sum", -1)
    assert (row.out_of_place.time_us, row.out_of_place.algbw_gbs, row.out_of_place.busbw_gbs) == (94981, 180.88,
                                                                                                    316.53)
    assert row.in_place is not None and (row.in_place.busbw_gbs, row.in_place.wrong) == (318.14, 0)


@pytest.mark.parametrize("name", [
    "s0-8.7.2.2.1-rccl-all_reduce-4nodes-32proc-check-off.txt",
    "s0-8.7.2.1.2-rccl-alltoall-4nodes-4proc-check-off.txt",
    "h200x2-all_reduce_perf-check-off.txt",
    "h200x2-mpirun-reduce_scatter_perf-check-off.txt",
], ids=["s0-allreduce", "s0-alltoall", "h200-allreduce", "h200-reduce-scatter"])
def test_check_off_gives_na_wrong(output: Output, name: str) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert result.validation is False
    assert correctness_checked(result) is False
    assert all(row.out_of_place.wrong is None for row in result.rows)
    assert not any_wrong(result)


@pytest.mark.parametrize("name", ["h200x2-alltoall_perf.txt", "h200x2-sendrecv_perf.txt", "h200x2-alltoallv_perf.txt",
                                  "h200x2-mpirun-alltoallv_perf.txt"],
                         ids=["alltoall", "sendrecv", "alltoallv", "mpirun-alltoallv"])
def test_in_place_na_with_checking_on(output: Output, name: str) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert result.validation is True and correctness_checked(result) is True
    assert all(row.in_place is not None and row.in_place.wrong is None for row in result.rows)


def test_empty_redop_column(output: Output) -> None:
    result = parse_nccl_tests(output("nccl-tests", "h200x2-mpirun-hypercube_perf.txt")).facts
    assert {row.redop for row in result.rows} == {None}
    assert {row.root for row in result.rows} == {-1}
    assert result.rows[-1].size_bytes == 33554432


@pytest.mark.parametrize("name", ["h200x2-gather_perf.txt", "h200x2-scatter_perf.txt", "h200x2-reduce_perf.txt",
                                  "h200x2-mpirun-gather_perf.txt", "h200x2-mpirun-scatter_perf.txt",
                                  "h200x2-mpirun-reduce_perf.txt"])
def test_rooted_collectives(output: Output, name: str) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert {row.root for row in result.rows} == {0}
    assert {row.redop for row in result.rows} == ({"sum"} if "reduce" in name else {"none"})
    assert result.out_of_bounds == 0 and result.out_of_bounds_ok is True
    assert not any_wrong(result) and correctness_checked(result)
    assert busbw_at_largest(result)[1] > 0


def test_test_failure_is_named(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_nccl_tests, output("nccl-tests", "h200x2-mpirun-all_reduce_perf-one-visible-gpu-failure.txt"),
                "no result table", "Test failure common.cu:1454: Invalid number of GPUs: 2 requested but only 1 were found")


@pytest.mark.parametrize("collective", ["all_gather", "alltoall", "reduce_scatter", "sendrecv", "broadcast"])
def test_other_collectives(output: Output, collective: str) -> None:
    result = parse_nccl_tests(output("nccl-tests", f"h200x2-{collective}_perf.txt")).facts
    assert result.collective == f"{collective}_perf"
    assert result.rows[-1].size_bytes == 268435456
    assert busbw_at_largest(result)[1] > 0


def test_wrong_results_found(output: Output) -> None:
    text = output("nccl-tests", H200_AR)
    row = "    33554432       8388608     float     sum      -1   138.63  242.05  242.05       0   138.78  241.78  241.78       0"
    assert row in text
    broken = text.replace(row, row[:-8] + "    12**")
    result = parse_nccl_tests(broken).facts
    assert any_wrong(result)
    [bad] = rows_with_wrong_results(result)
    assert bad.size_bytes == 33554432 and bad.in_place is not None and bad.in_place.wrong == 12


@pytest.mark.parametrize("name", ["all_reduce_perf-nccl-debug-info", "mpirun-all_reduce_perf-nccl-debug-info",
                                  "mpirun-p2p-shm-disabled-nccl-debug-info"])
def test_table_with_interleaved_nccl_debug_lines(output: Output, name: str) -> None:
    result = parse_nccl_tests(output("nccl-debug", f"h200x2-{name}.txt")).facts
    assert result.nccl_version == "2.28.3+cuda13.0"
    assert result.rows and result.rows[0].size_bytes == 8
    assert result.out_of_bounds_ok is True


def test_ocr_damaged_rows_refused(output: Output, unread_line: Callable[..., str]) -> None:
    parsed = parse_nccl_tests(output("nccl-tests", "s1-nccl-all_reduce-1node-h100-ocr-damaged.txt"))
    unread_line(parsed, "unexpected columns ['sum', '=1']")
    assert all(row.redop == "sum" for row in parsed.facts.rows)  # the damaged rows are refused, never shifted


def test_truncated_inside_a_row(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests", S4)
    parse_error(parse_nccl_tests, text[: text.index("8589934592 2147483648") + 40], "summary (output truncated?)")


def test_truncated_before_summary(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests", S4)
    parse_error(parse_nccl_tests, text[: text.index("# Errors with asterisks")], "no '# Out of bounds values'")


def test_truncated_before_rows(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests", H200_AR)
    parse_error(parse_nccl_tests, text[: text.index("           8             2")], "no rows")


def test_no_table(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests", H200_AR)
    parse_error(parse_nccl_tests, text[: text.index("# Using devices")], "no result table")


def test_lone_number_in_table(output: Output, unread_line: Callable[..., str]) -> None:
    text = output("nccl-tests", H200_AR)
    cut = text[: text.index("    33554432       8388608") + 12] + "\n# Out of bounds values : 0 OK\n"
    parsed = parse_nccl_tests(cut)
    unread_line(parsed, "33554432", "does not start with 'size count'")
    assert 33554432 not in {row.size_bytes for row in parsed.facts.rows}


# ---------------------------------------------------------------- -J JSON output


@pytest.mark.parametrize(("json_name", "text_name"), [
    ("h200x2-mpirun-all_reduce_perf.json", "h200x2-mpirun-all_reduce_perf-json-run-stdout.txt"),
    ("h200x2-all_gather_perf.json", "h200x2-all_gather_perf-json-run-stdout.txt"),
], ids=["all_reduce-mpirun", "all_gather"])
def test_json_agrees_with_the_same_runs_text(output: Output, json_name: str, text_name: str) -> None:
    from_json = parse_nccl_tests_json(output("nccl-tests-json", json_name)).facts
    from_text = parse_nccl_tests(output("nccl-tests", text_name)).facts
    assert from_json.collective == from_text.collective
    assert [row.size_bytes for row in from_json.rows] == [row.size_bytes for row in from_text.rows]
    for j, t in zip(from_json.rows, from_text.rows):
        assert j.in_place is not None and t.in_place is not None
        assert j.in_place.busbw_gbs == pytest.approx(t.in_place.busbw_gbs, abs=0.006)
        assert j.out_of_place.wrong == t.out_of_place.wrong == 0
        assert (j.redop, j.root) == (t.redop, t.root)
    assert from_json.avg_busbw_gbs == pytest.approx(from_text.avg_busbw_gbs, abs=0.0001)
    assert from_json.out_of_bounds_ok is True and from_json.validation is True


def test_json_devices_and_config(output: Output) -> None:
    result = parse_nccl_tests_json(output("nccl-tests-json", "h200x2-mpirun-all_reduce_perf.json")).facts
    assert [(d.rank, d.device, d.name) for d in result.devices] == [(0, 0, "NVIDIA H200"), (1, 1, "NVIDIA H200")]
    assert (result.ngpus, result.min_bytes, result.max_bytes, result.nccl_version) == (1, 8, 268435456, "22803")
    assert busbw_at_largest(result)[0] == 268435456


@pytest.mark.parametrize(("mutate", "fragment"), [
    pytest.param(lambda d: d.pop("results"), "missing key 'results'", id="no-results"),
    pytest.param(lambda d: d.update(results=[]), "results list is empty", id="empty-results"),
    pytest.param(lambda d: d["results"][0]["in_place"].update(bus_bw="fast"), "expected float, found str",
                 id="busbw-string"),
    pytest.param(lambda d: d["results"][0].pop("size"), "results[0]: missing key 'size'", id="no-size"),
    pytest.param(lambda d: d["results"][0]["out_of_place"].update(nwrong=-1.0), "expected a count", id="neg-wrong"),
    pytest.param(lambda d: d["config"].update(devices="all"), "expected list", id="devices-not-list"),
])
def test_json_damaged(output: Output, parse_error: Callable[..., ParseError], mutate: Callable[[dict], object],
                      fragment: str) -> None:
    data = json.loads(output("nccl-tests-json", "h200x2-mpirun-all_reduce_perf.json"))
    mutate(data)
    parse_error(parse_nccl_tests_json, json.dumps(data), fragment)


def test_json_na_wrong_is_none(output: Output) -> None:
    data = json.loads(output("nccl-tests-json", "h200x2-mpirun-all_reduce_perf.json"))
    data["results"][0]["out_of_place"]["nwrong"] = "N/A"
    assert parse_nccl_tests_json(json.dumps(data)).facts.rows[0].out_of_place.wrong is None


@pytest.mark.parametrize("text", ["", "{", "[]", '{"config": {}}'], ids=["empty", "truncated", "list", "no-results"])
def test_json_not_a_report(text: str) -> None:
    with pytest.raises(ParseError):
        parse_nccl_tests_json(text).facts


def test_json_truncated_file(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests-json", "h200x2-all_gather_perf.json")
    parse_error(parse_nccl_tests_json, text[: len(text) // 2], "not JSON")


@given(text=st.lists(st.sampled_from(list("0123456789.-# \n") + [
    "#       size         count      type   redop    root     time   algbw   busbw #wrong\n",
    "# Out of bounds values : 0 OK\n", "# Avg bus bandwidth    : 1.5\n", " float ", " sum ", "N/A", "#  Rank  0 "]),
    max_size=60).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_nccl_tests(text).facts
    except ParseError:
        pass


def test_facts_are_plain_data_for_xdist(output: Output) -> None:
    from pytest_gpufabric.parsers.registry import to_plain

    result = parse_nccl_tests(output("nccl-tests", S4)).facts
    plain = json.loads(json.dumps(to_plain(result)))
    assert plain["rows"][-1]["in_place"]["busbw_gbs"] == 367.51
    assert plain["devices"][0]["name"] == "AMD Instinct MI350X"


SUPERBENCH_AR = "superbench-a100x8-allreduce_perf-error-column.txt"
SUPERBENCH_A2A = "superbench-a100x8-alltoall_perf-error-column.txt"


@pytest.mark.parametrize(("name", "redop", "busbw_largest", "avg"), [
    pytest.param(SUPERBENCH_AR, "sum", 235.03, 68.4048, id="all_reduce"),
    pytest.param(SUPERBENCH_A2A, None, 226.16, 58.6481, id="alltoall-empty-redop"),
])
def test_error_column_of_older_builds(output: Output, name: str, redop: str | None, busbw_largest: float,
                                      avg: float) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert result.correctness_column == "error"
    assert (result.ngpus, len(result.devices), len(result.rows)) == (8, 8, 34)
    assert busbw_at_largest(result) == (EIGHT_GB, busbw_largest)
    assert result.rows[-1].redop == redop
    assert result.avg_busbw_gbs == avg
    assert all(row.out_of_place.wrong is None and row.out_of_place.max_error is None for row in result.rows)
    assert result.validation is False and not correctness_checked(result)
    assert (result.out_of_bounds, result.out_of_bounds_ok) == (0, True)


def test_error_column_values_are_deviations_not_counts(output: Output) -> None:
    text = output("nccl-tests", SUPERBENCH_AR).replace(
        "63896  134.44  235.26    N/A    63959  134.30  235.03    N/A", "63896  134.44  235.26  5e-07    63959  134.30  235.03  0e+00")
    row = parse_nccl_tests(text).facts.rows[-1]
    assert (row.out_of_place.max_error, row.in_place.max_error) == (5e-07, 0.0)
    assert (row.out_of_place.wrong, row.in_place.wrong) == (None, None)


def test_error_column_malformed_value(output: Output, unread_line: Callable[..., str]) -> None:
    text = output("nccl-tests", SUPERBENCH_AR).replace("235.26    N/A", "235.26    ?x?")
    unread_line(parse_nccl_tests(text), "error", "'?x?'")


def test_mixed_correctness_columns_refused(output: Output, parse_error: Callable[..., ParseError]) -> None:
    text = output("nccl-tests", SUPERBENCH_AR).replace("busbw  error     time", "busbw #wrong     time")
    parse_error(parse_nccl_tests, text, "column header")


@pytest.mark.parametrize(("name", "collective_rows", "largest", "busbw"), [
    pytest.param("h200x2-nccl-tests-2.10.1+4-all_reduce_perf-error-column.txt", 26, 268435456, 299.76, id="all_reduce"),
    pytest.param("h200x2-nccl-tests-2.10.1+4-reduce_scatter_perf-error-column.txt", 24, 67108864, None, id="reduce_scatter"),
])
def test_error_column_captured_with_checking_on(output: Output, name: str, collective_rows: int, largest: int,
                                                busbw: float | None) -> None:
    result = parse_nccl_tests(output("nccl-tests", name)).facts
    assert result.correctness_column == "error" and result.validation is True
    assert len(result.rows) == collective_rows
    assert all(row.out_of_place.max_error == 0.0 and row.in_place.max_error == 0.0 for row in result.rows)
    assert correctness_checked(result) and not any_wrong(result)
    size, measured = busbw_at_largest(result)
    assert size == largest and (busbw is None or measured == busbw)
