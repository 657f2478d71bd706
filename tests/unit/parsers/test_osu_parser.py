"""OSU micro-benchmarks parser on real outputs of OSU 7.4 (two ranks, host memory)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import MeasurementMissing, ParseError
from pytest_gpufabric.parsers.osu import max_value, parse_osu, value_at
from pytest_gpufabric.parsers.registry import PARSERS

Output = Callable[[str, str], str]


def test_registered() -> None:
    assert PARSERS.get("osu").func is parse_osu


@pytest.mark.parametrize(("name", "title", "columns", "units", "rows", "last_size"), [
    pytest.param("osu_bw-host-loopback.txt", "OSU MPI Bandwidth Test", ["Bandwidth (MB/s)"], ["MB/s"], 23, 4194304,
                 id="osu_bw"),
    pytest.param("osu_bibw-host-loopback.txt", "OSU MPI Bi-Directional Bandwidth Test", ["Bandwidth (MB/s)"],
                 ["MB/s"], 23, 4194304, id="osu_bibw"),
    pytest.param("osu_latency-host-loopback.txt", "OSU MPI Latency Test", ["Avg Latency(us)"], ["us"], 21, 1048576,
                 id="osu_latency"),
    pytest.param("osu_mbw_mr-host-loopback.txt", "OSU MPI Multiple Bandwidth / Message Rate Test",
                 ["MB/s", "Messages/s"], ["MB/s", "Messages/s"], 21, 1048576, id="osu_mbw_mr"),
    pytest.param("osu_allreduce-host-loopback.txt", "OSU MPI Allreduce Latency Test", ["Avg Latency(us)"], ["us"],
                 21, 1048576, id="osu_allreduce"),
    pytest.param("osu_alltoall-host-loopback.txt", "OSU MPI All-to-All Personalized Exchange Latency Test",
                 ["Avg Latency(us)"], ["us"], 19, 262144, id="osu_alltoall"),
    pytest.param("osu_allgather-full-host-loopback.txt", "OSU MPI Allgather Latency Test",
                 ["Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations"], ["us", "us", "us", None],
                 19, 262144, id="osu_allgather-full"),
])
def test_tables(output: Output, name: str, title: str, columns: list[str], units: list[str | None], rows: int,
                last_size: int) -> None:
    result = parse_osu(output("osu", name)).facts
    assert (result.title, result.version) == (title, "7.4")
    assert [c.name for c in result.columns] == columns
    assert [c.unit for c in result.columns] == units
    assert len(result.rows) == rows
    assert result.rows[0].size_bytes == 1 and result.rows[-1].size_bytes == last_size
    assert "Datatype: MPI_CHAR." in result.notes


def test_values(output: Output) -> None:
    result = parse_osu(output("osu", "osu_bw-host-loopback.txt")).facts
    assert value_at(result, 1) == 25.52
    assert value_at(result, 4194304) == 36179.73
    assert max_value(result) == (524288, 39137.06)


def test_named_column(output: Output) -> None:
    result = parse_osu(output("osu", "osu_mbw_mr-host-loopback.txt")).facts
    assert value_at(result, 1, "Messages/s") == 23898431.67
    assert result.notes[0] == "[ pairs: 1 ] [ window size: 64 ]"
    with pytest.raises(MeasurementMissing, match="no column 'Latency'"):
        value_at(result, 1, "Latency")


def test_full_statistics_columns(output: Output) -> None:
    result = parse_osu(output("osu", "osu_allgather-full-host-loopback.txt")).facts
    assert value_at(result, 262144, "Max") == 10.08
    assert value_at(result, 262144, "Iterations") == 100


def test_size_not_measured(output: Output) -> None:
    with pytest.raises(MeasurementMissing, match="no row for 65 bytes"):
        value_at(parse_osu(output("osu", "osu_latency-host-loopback.txt")).facts, 65)


def test_refused_run(output: Output, parse_error: Callable[..., ParseError]) -> None:
    parse_error(parse_osu, output("osu", "osu_bw-three-processes-error.txt"),
                "no OSU title, note or result row", "This test requires exactly two processes")


@pytest.mark.parametrize(("name", "columns", "first_size", "last"), [
    pytest.param("osu_xccl_bw-cuda-DD-nvlink.txt", ["Bandwidth (MB/s)"], 1, (4194304, 200379.60), id="xccl_bw"),
    pytest.param("osu_xccl_bibw-cuda-DD-nvlink.txt", ["Bandwidth (MB/s)"], 1, (4194304, 304019.43), id="xccl_bibw"),
    pytest.param("osu_xccl_latency-cuda-DD-nvlink.txt", ["Latency (us)"], 0, (1048576, 26.38), id="xccl_latency"),
])
def test_xccl_point_to_point_without_title(output: Output, name: str, columns: list[str], first_size: int,
                                            last: tuple[int, float]) -> None:
    result = parse_osu(output("osu", name)).facts
    assert (result.title, result.version, result.label) == (None, None, "OSU benchmark")
    assert result.notes == ("Using NCCL", "Using NCCL", "Send Buffer on DEVICE (D) and Receive Buffer on DEVICE (D)")
    assert [c.name for c in result.columns] == columns
    assert result.rows[0].size_bytes == first_size
    assert (result.rows[-1].size_bytes, result.rows[-1].values[0]) == last


@pytest.mark.parametrize(("name", "title", "largest"), [
    pytest.param("osu_xccl_allreduce-cuda-nvlink.txt", "OSU NCCL-CUDA Allreduce Latency Test", (1048576, 25.87),
                 id="xccl_allreduce"),
    pytest.param("osu_xccl_alltoall-cuda-nvlink.txt", "OSU NCCL-CUDA All-to-All Personalized Exchange Latency Test",
                 (262144, 23.76), id="xccl_alltoall"),
    pytest.param("osu_xccl_allgather-full-cuda-nvlink.txt", "OSU NCCL-CUDA Allgather Latency Test", (262144, 22.53),
                 id="xccl_allgather-full"),
    pytest.param("osu_bw-cuda-build-HH.txt", "OSU MPI-CUDA Bandwidth Test", (4194304, 12620.44), id="cuda_build_bw_HH"),
    pytest.param("osu_mbw_mr-cuda-build-HH.txt", "OSU MPI Multiple Bandwidth / Message Rate Test", (1048576, 13022.23),
                 id="cuda_build_mbw_mr_HH"),
])
def test_device_builds(output: Output, name: str, title: str, largest: tuple[int, float]) -> None:
    result = parse_osu(output("osu", name)).facts
    assert (result.title, result.version) == (title, "7.4")
    assert (result.rows[-1].size_bytes, result.rows[-1].values[0]) == largest


@pytest.mark.parametrize(("name", "label", "said"), [
    ("osu_xccl_bw-cuda-DH-illegal-memory-access.txt", "OSU benchmark", "an illegal memory access was encountered"),
    ("osu_bw-cuda-DD-mpi-not-cuda-aware-segfault.txt", "OSU MPI-CUDA Bandwidth Test", "Process received signal"),
], ids=["xccl-device-to-host-crash", "device-buffers-without-cuda-aware-mpi"])
def test_a_run_that_crashed_after_its_header_has_no_value(output: Output, name: str, label: str, said: str) -> None:
    """The crash report's lines are unread; any value asked of the run is missing, naming what it said."""
    parsed = parse_osu(output("osu", name))
    assert parsed.facts.rows == () and parsed.unread
    with pytest.raises(MeasurementMissing, match=f"{label}: no result rows .*{said}"):
        max_value(parsed.facts)


def test_a_second_table_is_unread(output: Output, unread_line) -> None:
    text = output("osu", "osu_bw-host-loopback.txt")
    parsed, alone = parse_osu(text + text).facts, parse_osu(text).facts
    assert (parsed.title, parsed.columns, parsed.rows) == (alone.title, alone.columns, alone.rows)
    parsed = parse_osu(text + text)
    unread_line(parsed, "# Size", "a second result table")


def test_cut_inside_a_row(output: Output, unread_line) -> None:
    """The last row cut mid-line is not read (its value may be cut); the rows before it are."""
    text = output("osu", "osu_allgather-full-host-loopback.txt")
    cut = text[: text.index("262144") + 30]
    parsed = parse_osu(cut)
    assert parsed.facts.rows[-1].size_bytes == 131072
    unread_line(parsed, "262144", "the output ends inside this line")


def test_cut_before_header(output: Output) -> None:
    text = output("osu", "osu_bw-host-loopback.txt")
    result = parse_osu(text[: text.index("# Size")]).facts
    assert result.columns == () and result.title == "OSU MPI Bandwidth Test"
    with pytest.raises(MeasurementMissing, match="no '# Size ...' column header"):
        value_at(result, 8192)


def test_cut_before_rows(output: Output) -> None:
    text = output("osu", "osu_bw-host-loopback.txt")
    with pytest.raises(MeasurementMissing, match="no result rows"):
        value_at(parse_osu(text[: text.index("1                      25.52")]).facts, 1)


def test_a_damaged_number_costs_only_its_row(output: Output, unread_line) -> None:
    parsed = parse_osu(output("osu", "osu_bw-host-loopback.txt").replace("25.52", "25..52"))
    unread_line(parsed, "25..52", "expected a number")
    assert 1 not in [row.size_bytes for row in parsed.facts.rows] and value_at(parsed.facts, 2) > 0


@given(text=st.lists(st.sampled_from(list("0123456789. #\n") + [
    "# OSU MPI Bandwidth Test v7.4\n", "# Size      Bandwidth (MB/s)\n", "# Size  ", "  Avg Latency(us)", "nan",
    "inf"]), max_size=60).map("".join))
@settings(max_examples=200, deadline=None)
def test_arbitrary_text_raises_only_parse_error(text: str) -> None:
    try:
        parse_osu(text).facts
    except ParseError:
        pass
