"""An output cut inside its last line: what a capture stopped by a timeout, a byte limit or a copy that ends
mid-line leaves. Every tool ends its lines, so a last line without its line end is not read: its last value
may be cut (``0-23,4`` of ``0-23,48-71``) and still look whole."""

from __future__ import annotations

from pytest_gpufabric.parsers.reading import Reading

UNFINISHED = "the output ends inside this line (no line end): its last value may be cut"


def refuse_unfinished_line(reading: Reading, text: str) -> None:
    """Mark the last line unread when ``text`` does not end with a line end."""
    if not isinstance(text, str) or not text or text.endswith(("\n", "\r")):
        return
    content = reading.content()
    if content and content[-1].number == reading.lines[-1].number:
        reading.unread(content[-1], UNFINISHED)
