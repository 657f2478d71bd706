"""Every real output of the corpus, fact by fact: each fact a person reads in it (``FACTS.yaml`` beside the
outputs, with the source of each output in ``SOURCES.md``) is read by its parser with the same value, except the
facts listed as not read with the reason; nothing is misread, nothing invented, no output refused or crashing
(``tools/corpus_facts.py`` measures the same figures for the closing report)."""

from __future__ import annotations

import pytest

from tools.corpus_facts import OUTPUTS, TOPOLOGY, expected, measure, measure_file

FAMILIES = sorted(path.name for path in OUTPUTS.iterdir() if (path / "FACTS.yaml").exists())
CASES = [(family, name) for family in FAMILIES for name, entry in expected(family).items() if "not_an_output" not in entry]


@pytest.mark.parametrize(("family", "name"), CASES, ids=[f"{family}/{name}" for family, name in CASES])
def test_every_fact_of_a_real_output_is_read(family: str, name: str) -> None:
    entry = expected(family)[name]
    present = {key: str(value) for key, value in (entry.get("facts") or {}).items()}
    not_read = entry.get("not_read") or {}
    assert set(not_read) <= set(present), "a fact listed as not read must be a fact of the output"
    tally = measure_file(family, name, present)
    assert tally.crashed == 0 and tally.refused == 0 and tally.misread == 0, tally.details
    unread = {detail.split(": not read ", 1)[1].split(" = ", 1)[0] for detail in tally.details if ": not read " in detail}
    assert unread == set(not_read), tally.details


def test_every_output_of_a_family_is_listed_and_has_a_source() -> None:
    for family in FAMILIES:
        listed = set(expected(family))
        files = {path.name for path in (OUTPUTS / family).iterdir() if path.name not in ("FACTS.yaml", "SOURCES.md")}
        assert listed == files, f"{family}: outputs without facts {sorted(files - listed)}, facts without output {sorted(listed - files)}"
        sources = (OUTPUTS / family / "SOURCES.md").read_text(encoding="utf-8") if (OUTPUTS / family / "SOURCES.md").exists() else ""
        sources += (OUTPUTS / "SOURCES.md").read_text(encoding="utf-8")
        assert not [name for name in files if name not in sources], f"{family}: an output without its source"


def test_the_topology_and_overall_figures_hold_the_issues_bar() -> None:
    """>= 90% of the topology facts and >= 80% of all node-tool facts read, 0 misread, 0 refused, 0 crashes."""
    tallies = measure()
    topology = [tally for family, tally in tallies.items() if family in TOPOLOGY]
    for group, bar in ((topology, 0.9), (list(tallies.values()), 0.8)):
        read, present = sum(t.read for t in group), sum(t.present for t in group)
        assert read >= bar * present
        assert sum(t.misread + t.refused + t.crashed for t in group) == 0
