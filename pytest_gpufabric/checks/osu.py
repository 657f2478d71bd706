"""OSU-001 and OSU-002: the OSU micro-benchmark runs the documents describe and the values judged from them.

Point to point (OSU-001): S2 "Point to Point (pt2pt) OSU Benchmarks" runs osu_latency, osu_bw and osu_bibw with
one rank on each node of the pair and ``-d rocm`` buffers; the catalog asks for the buffer placements D D, D H
and H H. osu_mbw_mr is judged the way S3 Table 6 states its figure: 64 processes per node, host memory,
aggregate bandwidth at 64 KB. Collectives (OSU-002): osu_allreduce and osu_alltoall latency at 64 KB (S3 Table 6).
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.parsers.osu import OsuResult, max_value, value_at

BUFFER_PLACEMENTS: tuple[tuple[str, str], ...] = (("D", "D"), ("D", "H"), ("H", "H"))  # catalog OSU-001
LATENCY_SIZE = 2  # S3 Table 6: unloaded latency at 2 bytes
MBW_MR_SIZE = 65536  # S3 Table 6: osu_mbw_mr at 64 KB
MBW_MR_RANKS_PER_NODE = 64  # S3 Table 6: 64 PPN
COLLECTIVE_SIZE = 65536  # S3 Table 6: 64K message
COLLECTIVES = ("osu_allreduce", "osu_alltoall")  # the two S3 Table 6 gives figures for
MEGABYTES_TO_GIGABITS = 8 / 1000  # OSU's MB/s are 10**6 bytes per second


def osu_program(benchmark: str, buffers: tuple[str, ...], gpu_vendor: str) -> tuple[str, ...]:
    """An OSU benchmark line; with buffers, ``-d rocm`` (S2) or ``-d cuda`` and the placements (e.g. D D)."""
    if not buffers:
        return (benchmark,)
    return (benchmark, "-d", "rocm" if gpu_vendor == "amd" else "cuda", *buffers)


@dataclass(frozen=True)
class OsuRun:
    """One OSU-001 run: the benchmark, its buffer placements (none: plain host memory) and ranks per node."""

    benchmark: str
    buffers: tuple[str, ...]
    ranks_per_node: int

    @property
    def label(self) -> str:
        placement = " ".join(self.buffers) if self.buffers else "host memory"
        return f"{self.benchmark} {placement}, {self.ranks_per_node} rank(s) per node"

    def program(self, gpu_vendor: str) -> tuple[str, ...]:
        if self.benchmark == "osu_mbw_mr":
            return (*osu_program(self.benchmark, self.buffers, gpu_vendor), "-m", f"{MBW_MR_SIZE}:{MBW_MR_SIZE}")
        return osu_program(self.benchmark, self.buffers, gpu_vendor)


def point_to_point_runs() -> tuple[OsuRun, ...]:
    """Every OSU-001 run of one node pair, in the order they are started."""
    runs = [OsuRun(benchmark, buffers, 1)
            for benchmark in ("osu_latency", "osu_bw", "osu_bibw") for buffers in BUFFER_PLACEMENTS]
    runs.append(OsuRun("osu_mbw_mr", (), MBW_MR_RANKS_PER_NODE))
    return tuple(runs)


@dataclass(frozen=True)
class JudgedValue:
    """One value an OSU run yields: the profile's name for it, the value, and how it was read."""

    name: str
    value: float
    detail: str


def judged_value(run: OsuRun, result: OsuResult) -> JudgedValue:
    """The value of ``run`` that the profile judges: latency at 2 B, peak bandwidth, or mbw_mr at 64 KB."""
    if run.benchmark == "osu_latency":
        return JudgedValue("osu_latency_us", value_at(result, LATENCY_SIZE), f"{result.label} at {LATENCY_SIZE} bytes")
    if run.benchmark == "osu_mbw_mr":
        megabytes = value_at(result, MBW_MR_SIZE, "MB/s")
        return JudgedValue("osu_mbw_mr_gbps", megabytes * MEGABYTES_TO_GIGABITS,
                           f"{result.label}: {megabytes} MB/s aggregate at {MBW_MR_SIZE} bytes")
    size, megabytes = max_value(result)
    memory = "peak" if "D" in run.buffers else "host_peak"
    return JudgedValue(f"{run.benchmark}_{memory}_gbps", megabytes * MEGABYTES_TO_GIGABITS,
                       f"{result.label}: peak {megabytes} MB/s at {size} bytes")
