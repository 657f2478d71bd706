"""Helpers shared by the parsers: clean raw tool output and turn bad input into ParseError."""

from __future__ import annotations

import math
import re
from typing import NoReturn

from pytest_gpufabric.errors import ParseError

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# A shell prompt left at the end of a pasted or captured output: ``user@host:~$``, ``(env) user@host:~#``.
TRAILING_PROMPT = re.compile(r"^(\([^)]*\)\s*)?\S+@\S+?:\S*\s*[$#]\s*$|^[$#]\s*$")
# A shell prompt with the command it ran, pasted above an output: ``root@node:~# ethtool eth2``,
# ``[root@pod /]# ibdev2netdev``, ``$ ethtool -i eth0``. Only for outputs that have no line of this form.
COMMAND_PROMPT = re.compile(r"^(\([^)]*\)\s*)?(\[[^\]\s]+@[^\]]+\][$#]|\S+@\S+?:\S*\s*[$#]|[$#])\s+\S.*$")
# Control characters that never appear in the text output of the tools we parse (and U+FFFD, what a decoder
# leaves of bytes that were not text). A NUL means a binary output: refused. The others (a bell, a backspace, a
# stray escape in a pasted or captured output) are replaced by REPLACEMENT and noted; the rest is parsed.
BINARY_CHARS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f\ufffd]")
REPLACEMENT = "\ufffd"
# The ASCII characters outside BINARY_CHARS: tab, line feed, carriage return, escape and the printable ones.
ASCII_TEXT_BYTES = bytes([0x09, 0x0A, 0x0D, 0x1B, *range(0x20, 0x7F)])
NOTED_POSITIONS = 3  # how many positions a note names


def _has_binary_chars(text: str) -> bool:
    """Whether ``text`` holds a character of BINARY_CHARS (for ASCII text, a look at its bytes: several times faster)."""
    if text.isascii():
        return bool(text.encode("ascii").translate(None, ASCII_TEXT_BYTES))
    return BINARY_CHARS.search(text) is not None


def fail(tool: str, reason: str) -> NoReturn:
    """Raise the ParseError of ``tool``."""
    raise ParseError(tool, reason)


def strip_ansi(text: str) -> str:
    """Text without ANSI color and cursor escapes."""
    return ANSI_ESCAPE.sub("", text)


def normalize(tool: str, text: str) -> tuple[str, list[str]]:
    """Output with ANSI escapes removed, CRLF to LF and control characters replaced, and the notes saying what
    was replaced (line and column of the first few). ParseError on a binary output (a NUL) or no content."""
    if not isinstance(text, str):
        fail(tool, f"expected text, got {type(text).__name__}")
    if "\x1b" in text:  # every escape starts with ESC: without one there is nothing to remove
        text = strip_ansi(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    nul = text.find("\x00")
    if nul >= 0:
        fail(tool, f"binary data (character '\\x00' at offset {nul}), not a text output")
    if not text or text.isspace():
        fail(tool, "empty output")
    if not _has_binary_chars(text):  # the usual output: nothing to replace, nothing to note
        return text, []
    return BINARY_CHARS.sub(REPLACEMENT, text), control_character_notes(text)


def control_character_notes(text: str) -> list[str]:
    """One note naming the control characters of an output that parsing replaces (lines and columns as
    parsers number them); [] if none."""
    text = strip_ansi(text).replace("\r\n", "\n").replace("\r", "\n")
    found = list(BINARY_CHARS.finditer(text))
    if not found:
        return []
    places = []
    for match in found[:NOTED_POSITIONS]:
        line = text.count("\n", 0, match.start()) + 1
        column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
        places.append(f"{match.group()!r} at line {line} column {column}")
    more = f" and {len(found) - NOTED_POSITIONS} more" if len(found) > NOTED_POSITIONS else ""
    return [f"{len(found)} control character(s) replaced by U+FFFD before parsing: {', '.join(places)}{more}"]


def clean_text(tool: str, text: str) -> str:
    """Normalized output: ANSI escapes removed, CRLF to LF, control characters replaced by U+FFFD (the
    ``normalize`` notes say where); ParseError on binary data or no content."""
    return normalize(tool, text)[0]


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

