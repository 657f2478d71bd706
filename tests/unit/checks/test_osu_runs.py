"""OSU-001/002 run lines and judged values, read from real OSU 7.4 outputs."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.osu import MBW_MR_RANKS_PER_NODE, OsuRun, judged_value, osu_program, point_to_point_runs
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.osu import parse_osu
from tests.outputs import read_output


def osu(name: str):  # type: ignore[no-untyped-def]
    return parse_osu(read_output("osu", name)).facts


def test_program_lines_per_vendor() -> None:
    assert osu_program("osu_bw", ("D", "H"), "amd") == ("osu_bw", "-d", "rocm", "D", "H")
    assert osu_program("osu_bw", ("D", "D"), "nvidia") == ("osu_bw", "-d", "cuda", "D", "D")
    assert osu_program("osu_bw", (), "amd") == ("osu_bw",)


def test_point_to_point_runs_cover_every_benchmark_and_placement() -> None:
    runs = point_to_point_runs()
    placements = [("D", "D"), ("D", "H"), ("H", "H")]
    assert [(run.benchmark, run.buffers) for run in runs] == [
        *((benchmark, buffers) for benchmark in ("osu_latency", "osu_bw", "osu_bibw") for buffers in placements),
        ("osu_mbw_mr", ())]
    mbw_mr = runs[-1]
    assert mbw_mr.ranks_per_node == MBW_MR_RANKS_PER_NODE == 64
    assert mbw_mr.program("amd") == ("osu_mbw_mr", "-m", "65536:65536")
    assert {run.ranks_per_node for run in runs[:-1]} == {1}


def test_latency_is_read_at_two_bytes() -> None:
    judged = judged_value(OsuRun("osu_latency", ("D", "D"), 1), osu("osu_xccl_latency-cuda-DD-nvlink.txt"))
    assert (judged.name, judged.value) == ("osu_latency_us", 15.46)
    assert "OSU benchmark at 2 bytes" in judged.detail


@pytest.mark.parametrize(("run", "name", "gbps", "size"), [
    pytest.param(OsuRun("osu_bw", ("D", "D"), 1), "osu_bw_peak_gbps", 200379.60 * 8 / 1000, 4194304, id="device"),
    pytest.param(OsuRun("osu_bw", ("H", "H"), 1), "osu_bw_host_peak_gbps", 200379.60 * 8 / 1000, 4194304, id="host"),
])
def test_bandwidth_is_the_peak_in_gigabits(run: OsuRun, name: str, gbps: float, size: int) -> None:
    judged = judged_value(run, osu("osu_xccl_bw-cuda-DD-nvlink.txt"))
    assert judged.name == name and judged.value == pytest.approx(gbps)
    assert f"at {size} bytes" in judged.detail


def test_peak_is_not_the_last_row() -> None:
    judged = judged_value(OsuRun("osu_bibw", ("H", "H"), 1), osu("osu_bibw-host-loopback.txt"))
    assert judged.value == pytest.approx(66517.25 * 8 / 1000)
    assert "at 524288 bytes" in judged.detail


def test_mbw_mr_is_the_aggregate_at_64k() -> None:
    judged = judged_value(OsuRun("osu_mbw_mr", (), 64), osu("osu_mbw_mr-64-pairs-64k-host-loopback.txt"))
    assert judged.name == "osu_mbw_mr_gbps" and judged.value == pytest.approx(48990.55 * 8 / 1000)


def test_mbw_mr_run_that_stopped_before_64k_is_missing() -> None:
    text = read_output("osu", "osu_mbw_mr-host-loopback.txt")
    stopped = parse_osu(text[: text.index("\n65536 ") + 1]).facts
    with pytest.raises(MeasurementMissing, match="no row for 65536 bytes"):
        judged_value(OsuRun("osu_mbw_mr", (), 64), stopped)
