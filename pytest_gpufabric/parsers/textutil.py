"""Helpers shared by the parsers: clean raw tool output and turn bad input into ParseError."""

from __future__ import annotations

import math

import re
from typing import NoReturn

from pytest_gpufabric.errors import ParseError

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# A shell prompt left at the end of a pasted or captured output: ``user@host:~$``, ``(env) user@host:~#``.
TRAILING_PROMPT = re.compile(r"^(\([^)]*\)\s*)?\S+@\S+?:\S*\s*[$#]\s*$|^[$#]\s*$")
# Control characters that never appear in the text output of the tools we parse.
BINARY_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f\ufffd]")


def fail(tool: str, reason: str) -> NoReturn:
    """Raise the ParseError of ``tool``."""
    raise ParseError(tool, reason)


def strip_ansi(text: str) -> str:
    """Text without ANSI color and cursor escapes."""
    return ANSI_ESCAPE.sub("", text)


def clean_text(tool: str, text: str) -> str:
    """Normalized output: ANSI escapes removed, CRLF to LF; ParseError on binary data or no content."""
    if not isinstance(text, str):
        fail(tool, f"expected text, got {type(text).__name__}")
    text = strip_ansi(text).replace("\r\n", "\n").replace("\r", "\n")
    binary = BINARY_CHARS.search(text)
    if binary:
        fail(tool, f"binary data (character {binary.group()!r} at offset {binary.start()}), not a text output")
    if not text.strip():
        fail(tool, "empty output")
    return text


def clean_lines(tool: str, text: str) -> list[str]:
    """Lines of a normalized output, without trailing spaces, trailing prompt lines and blank edges."""
    lines = [line.rstrip() for line in clean_text(tool, text).split("\n")]
    while lines and (not lines[-1].strip() or TRAILING_PROMPT.match(lines[-1].strip())):
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        fail(tool, "no output besides a shell prompt")
    return lines


def parse_int(tool: str, value: str, what: str, base: int = 10) -> int:
    """``int(value)`` or a ParseError naming the field."""
    try:
        return int(value.strip(), base)
    except ValueError:
        fail(tool, f"{what}: expected an integer, found {value.strip()!r}")


def parse_float(tool: str, value: str, what: str) -> float:
    """``float(value)`` or a ParseError naming the field; NaN and infinities are refused too."""
    try:
        number = float(value.strip())
    except ValueError:
        fail(tool, f"{what}: expected a number, found {value.strip()!r}")
    if not math.isfinite(number):
        fail(tool, f"{what}: expected a finite number, found {value.strip()!r}")
    return number

