"""The scrubber's shortcut: a built-in pattern searches only texts that hold one of its words. Each word list must
be a necessary condition of its pattern, or a secret would stay in a report: checked on texts each pattern
matches (generated from the pattern itself) and, on every real output the project holds, the shortcut must give
exactly what all patterns on every text give."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_gpufabric.recording.scrub import DEFAULT_PATTERNS, DEFAULTS, Scrubber

REPO = Path(__file__).resolve().parents[3]
REAL_OUTPUTS = sorted(path for folder in ("fixtures/outputs", "recordings", "tests/unit/recording/data") for path in (REPO / folder).rglob("*")
                      if path.is_file() and path.suffix in (".txt", ".cfg", ".conf", ".json", ".yaml", ".log", ""))


@pytest.mark.parametrize("index", range(len(DEFAULTS)), ids=[f"pattern{i}" for i in range(len(DEFAULTS))])
def test_every_text_a_pattern_matches_holds_one_of_its_words(index: int) -> None:
    source, words = DEFAULTS[index]
    pattern = re.compile(source)

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern, alphabet=st.characters(min_codepoint=9, max_codepoint=126)))
    def holds(text: str) -> None:
        assert pattern.search(text)
        assert any(word in text.lower() for word in words), (source, text, words)
    holds()


def test_the_shortcut_scrubs_every_real_output_as_every_pattern_does() -> None:
    shortcut, every_pattern = Scrubber(), Scrubber(DEFAULT_PATTERNS, defaults=False)
    assert len(REAL_OUTPUTS) > 500
    changed = 0
    for path in REAL_OUTPUTS:
        text = path.read_text(encoding="utf-8", errors="replace")
        expected = every_pattern.scrub(text)
        assert shortcut.scrub(text) == expected, path
        changed += expected != text
    assert changed >= 3  # outputs with secrets are among them (switch configurations, the scrubber's own test data)


def test_a_text_of_other_characters_is_searched_with_every_pattern() -> None:
    # "ſ" (long s) matches "s" case-blind but is no "s" in lower case: such a text takes no shortcut
    assert Scrubber().scrub("PAſSWORD=hunter2") == "PAſSWORD=<scrubbed>"
