"""What one perftest output costs the controller to read: ``parse_perftest`` on real captures of each kind
(fixtures/outputs/perftest/SOURCES.md): an ``-a`` bandwidth table in Gb/sec (the pair sweep's PERF-002 client,
S0 2.8.2), the same in MB/sec, a capture of both sides of one GPU-memory run, a latency table of all sizes and
failed runs. A 1,024 x 8 round reads 8,192 such outputs in the controller's processes.

The milliseconds per output land in the benchmark's extra_info and are printed; pytest-benchmark is off under
xdist (``make test``), and then the test times a fixed number of parses itself. The bound is generous (a shared
machine): ``docs/scale-benchmarks.md`` holds the figures, and ``tools/perftest_parse_cost.py --base REV`` compares
this code with a revision's, in one run.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_gpufabric.parsers.perftest import parse_perftest
from tests.outputs import read_output
from tools.perftest_parse_cost import CAPTURES

EXPECTED = {  # table kind and rows of each capture of tools.perftest_parse_cost
    "bw-a-gbits-rocm-bidirectional": ("bw", 23),
    "bw-a-mbsec": ("bw", 23),
    "bw-a-rocm-both-sides": ("bw", 23),
    "lat-a": ("lat", 23),
    "failed-status-12": (None, 0),
    "failed-no-server": (None, 0),
}
PARSES = 200  # timed by the test itself when pytest-benchmark is off
MAX_MS_PER_OUTPUT = 20.0  # ~0.03-0.6 ms unloaded; generous for a loaded shared machine


def test_every_capture_of_the_tool_is_benchmarked() -> None:
    assert sorted(EXPECTED) == sorted(CAPTURES)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_perftest_output_parse_cost(case: str, benchmark: Any) -> None:
    name = CAPTURES[case]
    kind, rows = EXPECTED[case]
    text = read_output("perftest", name)
    if benchmark.disabled:  # it runs the function once
        parsed = benchmark(parse_perftest, text)
        started = time.process_time()
        for _ in range(PARSES):
            parse_perftest(text)
        ms = 1000 * (time.process_time() - started) / PARSES
    else:
        parsed = benchmark(parse_perftest, text)
        ms = 1000 * benchmark.stats.stats.min
        benchmark.extra_info.update({"capture": name, "lines": text.count("\n"), "min_ms_per_output": round(ms, 4)})
    facts = parsed.facts
    assert facts.kind == kind and len(facts.bandwidth_rows) + len(facts.latency_rows) == rows
    assert bool(facts.errors) == (kind is None)
    print(f"\n{case} ({name}, {text.count(chr(10))} lines): {ms:.3f} ms per output")
    assert ms < MAX_MS_PER_OUTPUT
