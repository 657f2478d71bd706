"""The corpus of real switch outputs (tests/switch_corpus.py): every output parsed, every fact a careful reader sees
read with its value (or declared not read), nothing misread, no output refused that is this command's output;
the facts-read figure per switch OS (tools/switch_corpus_facts.py prints it)."""

from __future__ import annotations

import pytest

from tests.outputs import OUTPUTS
from tests.switch_corpus import ABSENT, CORPUS, NOT_READ, Output
from tests.switch_corpus_figure import figure, read_corpus

SWITCH_FOLDERS = sorted(p.name for p in OUTPUTS.iterdir() if p.is_dir() and p.name.startswith(("eos-", "sonic-", "junos-")))
READINGS = {(r.output.tool, r.output.name): r for r in read_corpus()}


@pytest.mark.parametrize("output", CORPUS, ids=[f"{o.tool}/{o.name}" for o in CORPUS])
def test_every_fact_is_read_and_nothing_is_misread(output: Output) -> None:
    reading = READINGS[(output.tool, output.name)]
    assert (reading.refused is not None) == output.refused, reading.refused
    assert reading.misread == ()
    shown = [path for path, value in output.facts.items() if value is not NOT_READ and value is not ABSENT]
    assert reading.read == len(shown), "a fact the output shows is not read"


def test_the_corpus_is_every_switch_output_kept() -> None:
    kept = {(folder, p.name) for folder in SWITCH_FOLDERS for p in (OUTPUTS / folder).iterdir() if p.suffix != ".md"}
    assert kept == {(o.tool, o.name) for o in CORPUS}


def test_at_least_forty_outputs_of_several_releases_per_os() -> None:
    assert len(CORPUS) >= 40
    for os_name in ("arista", "sonic", "juniper"):
        releases = {o.release for o in CORPUS if o.os == os_name}
        assert len(releases) >= 4, (os_name, releases)


def test_facts_read_per_os_at_least_eighty_percent() -> None:
    for os_name, (_, read, present) in figure(list(READINGS.values())).items():
        assert read >= 0.8 * present, (os_name, read, present)


def test_every_output_names_its_source() -> None:
    for folder in SWITCH_FOLDERS:
        sources = (OUTPUTS / folder / "SOURCES.md").read_text(encoding="utf-8")
        for path in (OUTPUTS / folder).iterdir():
            if path.suffix != ".md":
                assert f"`{path.name}`" in sources, f"{folder}/{path.name} has no source in SOURCES.md"
