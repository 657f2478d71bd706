"""The demo's pair checks give the committed per-pair outcomes, measurements and suspects (whatever the
item granularity), serially and under xdist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pair_baseline import baseline, replay_pairs

BASELINE = Path(__file__).parent / "data" / "demo_pair_baseline.json"


@pytest.mark.parametrize("workers", ["0", "2"])
def test_demo_pairs_match_the_committed_baseline(workers: str, tmp_path: Path) -> None:
    expected = json.loads(BASELINE.read_text(encoding="utf-8"))
    records, terminal = replay_pairs(tmp_path, "-n", workers)
    actual = json.loads(json.dumps(baseline(records, terminal)))
    assert actual["suspects"] == expected["suspects"]
    assert actual["suspects"], "the demo's faults are localized"
    missing = sorted(set(expected["pairs"]) - set(actual["pairs"]))
    extra = sorted(set(actual["pairs"]) - set(expected["pairs"]))
    assert not missing and not extra, f"missing {missing[:5]}, extra {extra[:5]}"
    changed = [key for key in expected["pairs"] if actual["pairs"][key] != expected["pairs"][key]]
    assert not changed, f"{len(changed)} pairs changed, e.g. {changed[0]}: {actual['pairs'][changed[0]]} != {expected['pairs'][changed[0]]}"
