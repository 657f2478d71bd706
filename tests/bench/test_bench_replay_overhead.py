"""Per-item overhead of a replayed acceptance run against a plain pytest test that does nothing.

Both runs happen in this one test, in-process, with the same number of items, so their difference divided by
the number of items is the plugin's cost per item (inventory parametrization, replay lookup, parsing,
judging, results record). The figures land in the benchmark's extra_info (``--benchmark-json``): wall
seconds, and this process's CPU seconds, which other work on a shared machine leaves alone (the ratio of the
replayed to the plain item is taken from them).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "recordings" / "demo"
ROUNDS = 3


SUITE_FILES = ("test_host.py", "test_link.py", "test_pcie.py")  # the node and NIC checks: hundreds of items, seconds


def _replay_args() -> list[str]:
    return [*(str(REPO / "suites" / "acceptance" / name) for name in SUITE_FILES), f"--cluster={DEMO / 'site.yaml'}", f"--replay={DEMO}",
            f"--thresholds-dir={REPO / 'thresholds'}", "-p", "no:cacheprovider", "-q", "-p", "no:randomly"]


def _count(reprec: pytest.HookRecorder) -> int:
    return len([r for r in reprec.getreports("pytest_runtest_logreport") if r.when == "call" or (r.when == "setup" and r.skipped)])


def test_replayed_item_overhead(pytester: pytest.Pytester, benchmark: pytest.FixtureRequest) -> None:
    probe = pytester.inline_run(*_replay_args())
    items = _count(probe)
    assert items > 50
    pytester.makepyfile(test_plain=f"""
import pytest
@pytest.mark.parametrize("n", range({items}))
def test_nothing(n):
    pass
""")

    def plain() -> None:
        pytester.inline_run("test_plain.py", "-p", "no:cacheprovider", "-q")

    started, started_cpu = time.perf_counter(), time.process_time()
    for _ in range(ROUNDS):
        plain()
    plain_s, plain_cpu_s = (time.perf_counter() - started) / ROUNDS, (time.process_time() - started_cpu) / ROUNDS

    def replay() -> pytest.HookRecorder:
        return pytester.inline_run(*_replay_args())

    started_cpu = time.process_time()
    if benchmark.disabled:  # type: ignore[attr-defined]  # pytest-benchmark is off under xdist: time it here
        started = time.perf_counter()
        for _ in range(ROUNDS):
            replayed = replay()
        replay_s = (time.perf_counter() - started) / ROUNDS
    else:
        replayed = benchmark.pedantic(replay, rounds=ROUNDS, iterations=1)  # type: ignore[attr-defined]
        replay_s = benchmark.stats.stats.mean  # type: ignore[attr-defined]
    replay_cpu_s = (time.process_time() - started_cpu) / ROUNDS
    assert _count(replayed) == items
    benchmark.extra_info.update({  # type: ignore[attr-defined]
        "items": items,
        "replay_run_s": round(replay_s, 4),
        "plain_run_s": round(plain_s, 4),
        "replay_per_item_ms": round(1000 * replay_s / items, 3),
        "plain_per_item_ms": round(1000 * plain_s / items, 3),
        "overhead_per_item_ms": round(1000 * (replay_s - plain_s) / items, 3),
        "replay_cpu_s": round(replay_cpu_s, 4),
        "plain_cpu_s": round(plain_cpu_s, 4),
        "replayed_vs_plain_item_cpu": round(replay_cpu_s / plain_cpu_s, 2),
    })
    print(f"\n{items} items: replay {replay_s:.3f} s, plain {plain_s:.3f} s, "
          f"overhead {1000 * (replay_s - plain_s) / items:.2f} ms per item; CPU: replay {replay_cpu_s:.3f} s, "
          f"plain {plain_cpu_s:.3f} s, a replayed item {replay_cpu_s / plain_cpu_s:.2f} x a plain one")
