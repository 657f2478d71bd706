"""The estimate printed before a pair sweep: rounds, duration from the profile's per-test time, the warning."""

from __future__ import annotations

from pathlib import Path

from pytest_gpufabric.expectations import load_profile
from pytest_gpufabric.parsers.perftest import parse_perftest
from pytest_gpufabric.scheduling.estimate import CheckSweep, duration_text, estimate_lines
from tests.outputs import read_output

THRESHOLDS = Path(__file__).resolve().parents[3] / "thresholds"
MI300X = load_profile(THRESHOLDS, "mi300x-thor2")


def test_lab_sweep_is_rounds_times_the_stand_in_time() -> None:
    lines = estimate_lines([CheckSweep("PERF-002", 15, 120, 16)], load_profile(THRESHOLDS, "lab-perftest-standin"), "all", None)
    assert lines[0].startswith("PERF-002 sweep: 15 rounds, 120 node pairs (up to 16 NIC pairs at once); estimated 15 s "
                               "(15 rounds x 1 s per NIC-pair test; profile lab-perftest-standin: the stand-in holds")
    assert lines[1] == "pair sweeps (all): estimated 15 s for the 1 of 1 checks with a per-test time"


def test_all_pairs_of_1024_nodes_warn_and_suggest_rounds() -> None:
    sweeps = [CheckSweep(check, 1023, 523_776, 4096) for check in ("PERF-002", "PERF-003", "PERF-007")]
    lines = estimate_lines(sweeps, MI300X, "all", None)
    assert "estimated 119 min (1023 rounds x 7 s per NIC-pair test; profile mi300x-thor2: S0 2.8.2" in lines[0]
    assert lines[2] == ("PERF-007 sweep: 1023 rounds, 523776 node pairs (up to 4096 NIC pairs at once); "
                        "no estimate: profile mi300x-thor2 gives no per-test time for PERF-007")
    assert lines[3] == "pair sweeps (all): estimated 3 h 59 min for the 2 of 3 checks with a per-test time"
    assert lines[4] == ("WARNING: the pair sweeps take about 3 h 59 min, more than 3 h 00 min; --pair-policy=rounds:771 "
                        "measures 771 rounds per check (about 3 h 00 min)")


def test_a_smaller_fanout_makes_rounds_longer() -> None:
    lines = estimate_lines([CheckSweep("PERF-002", 63, 2016, 256)], MI300X, "all", 100)
    assert "estimated 22 min (63 rounds x 7 s per NIC-pair test x 3 (--fanout=100);" in lines[0]


def test_no_pair_sweep_prints_nothing() -> None:
    assert estimate_lines([], MI300X, "all", None) == []


def test_durations_read_as_people_say_them() -> None:
    assert [duration_text(s) for s in (0.4, 45, 119, 720, 7100, 7200, 14340)] == ["0 s", "45 s", "119 s", "12 min", "118 min",
                                                                                 "2 h 00 min", "3 h 59 min"]


def test_profile_test_time_of_perf_002_is_what_the_s0_capture_took() -> None:
    """3.5 s a run: the sum over the capture's sizes of iterations / message rate; PERF-002 runs both ways."""
    capture = parse_perftest(read_output("perftest", "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt")).facts
    run_s = sum(row.iterations / (row.msg_rate_mpps * 1e6) for row in capture.bandwidth_rows)
    assert round(run_s, 1) == 3.5
    assert MI300X.test_times["PERF-002"].seconds == round(2 * run_s, 0) == MI300X.test_times["PERF-003"].seconds
