"""COLL-001..006: benchmark program lines and the values judged from their outputs."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.parsers.nccl_tests import (
    NcclTestsResult,
    correctness_checked,
    rows_with_wrong_results,
)

EIGHT_GB = 8 * 1024**3  # S4 "Allreduce": in-place busbw at a message size of 8 GB
# COLL-005: S2 collective loop, S1 list, S0 8.7.2.1 (alltoall).
SWEEP = ("all_gather", "alltoall", "alltoallv", "broadcast", "gather", "reduce", "reduce_scatter", "scatter", "sendrecv")


def perf_program(collective: str, begin: str, end: str, gpus: int) -> tuple[str, ...]:
    """``<coll>_perf -b <begin> -e <end> -f 2 -g <gpus>`` (rccl-tests / nccl-tests, result checking on)."""
    return (f"{collective}_perf", "-b", begin, "-e", end, "-f", "2", "-g", str(gpus))


@dataclass(frozen=True)
class Correctness:
    """COLL-002: sizes with ``#wrong`` > 0, whether checking was on, and the out-of-bounds line."""

    wrong_sizes: tuple[int, ...]
    checked: bool
    out_of_bounds: int | None
    out_of_bounds_ok: bool | None

    @property
    def wrong_count(self) -> int:
        return len(self.wrong_sizes)


def correctness(result: NcclTestsResult) -> Correctness:
    return Correctness(tuple(row.size_bytes for row in rows_with_wrong_results(result)), correctness_checked(result),
                       result.out_of_bounds, result.out_of_bounds_ok)

