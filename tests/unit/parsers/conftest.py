"""Shared helpers for the parser tests: read the real outputs kept under fixtures/outputs/<tool>/."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from pytest_gpufabric.errors import ParseError
from tests.outputs import read_output


@pytest.fixture
def output() -> Callable[[str, str], str]:
    """``output(tool, file_name)``: the text of fixtures/outputs/<tool>/<file_name>."""
    return read_output


@pytest.fixture
def parse_error() -> Callable[..., ParseError]:
    """``parse_error(func, text, *fragments)``: assert ``func(text)`` raises ParseError naming every fragment."""

    def check(func: Callable[[str], Any], text: str, *fragments: str) -> ParseError:
        with pytest.raises(ParseError) as caught:
            func(text)
        message = str(caught.value)
        for fragment in fragments:
            assert fragment in message, f"{fragment!r} not in {message!r}"
        return caught.value

    return check


@pytest.fixture
def unread_line() -> Callable[..., Any]:
    """``unread_line(parsed, *fragments)``: the parser read the output but left a line unread whose text and
    reason hold every fragment (the parsing rule: a bad line costs only its own facts)."""

    def check(parsed: Any, *fragments: str) -> Any:
        lines = [f"{u.text} ({u.reason})" for u in parsed.unread]
        found = [line for line in lines if all(fragment in line for fragment in fragments)]
        assert found, f"no unread line with {fragments!r} in {lines!r}"
        return found[0]

    return check
