"""What scrubbing one command output of secrets costs: ``Scrubber.scrub`` (the built-in patterns) on real outputs
a run reports by the thousand (a PERF-002 client output of S0 2.8.2, a capture of both sides of a GPU-memory run,
a switch's running configuration that holds secrets). Every report of an item is scrubbed in the process that ran it; a
node-pair item of 8 rails carries 32 perftest outputs. Each call scrubs with a new Scrubber: a run's outputs are
all different (addresses, queue pair numbers), so its cache does not answer them.

pytest-benchmark is off under xdist (``make test``), and then the test times a fixed number of scrubs itself. The
bound is generous (a shared machine); ``docs/scale-benchmarks.md`` holds the figures.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_gpufabric.recording.scrub import SCRUBBED, Scrubber
from tests.outputs import read_output

OUTPUTS = {  # name -> (tool folder, file, whether it holds a secret)
    "perftest-client": ("perftest", "s0-2.8.2-ib_write_bw-rocm-bidirectional-gbits.txt", False),
    "perftest-both-sides": ("perftest", "mi355x-ionic-ib_write_bw-rocm-both-sides-mibsec.txt", False),
    "eos-running-config": ("eos-running-config", "avd-dc1-pod1-leaf1a.cfg", True),
}
SCRUBS = 200  # timed by the test itself when pytest-benchmark is off
MAX_MS_PER_OUTPUT = 20.0  # well under 1 ms unloaded; generous for a loaded shared machine


def _scrub_fresh(text: str) -> str:
    return Scrubber().scrub(text)


@pytest.mark.parametrize("case", sorted(OUTPUTS))
def test_scrub_cost(case: str, benchmark: Any) -> None:
    folder, name, secret = OUTPUTS[case]
    text = read_output(folder, name)
    scrubbed = benchmark(_scrub_fresh, text)
    if benchmark.disabled:
        started = time.process_time()
        for _ in range(SCRUBS):
            _scrub_fresh(text)
        ms = 1000 * (time.process_time() - started) / SCRUBS
    else:
        ms = 1000 * benchmark.stats.stats.min
        benchmark.extra_info.update({"output": name, "characters": len(text), "min_ms_per_output": round(ms, 4)})
    assert (SCRUBBED in scrubbed) == secret and (scrubbed == text) == (not secret)
    print(f"\n{case} ({name}, {len(text)} characters): {ms:.3f} ms per output")
    assert ms < MAX_MS_PER_OUTPUT
