"""The integrity line of a node file: a recording file that was cut or edited is refused with its file and line.

Every node file a store writes (atomically) ends with one line,

    # gpufabric-integrity: sha256=<digest of the text before this line> bytes=<its length in UTF-8 bytes>

and each of its command entries holds the digest of its own data (``digest:``, the command and its episodes). A
file whose digest does not match was changed after it was written: it is refused naming the first entry (with
its line) whose data no longer matches its digest, or, when every entry matches, the lines outside the entries. A
file of a sealed recording (``integrity: sha256`` in ``recording.yaml``) that does not end with an integrity line
was cut short, or not written by gpufabric: it is refused naming its last line. Recordings made before the
integrity line (no ``integrity`` in ``recording.yaml``) are read as they are, and a node file of theirs that has an
integrity line is checked; ``gpufabric recording seal DIR`` adds the lines to such a recording.
"""

from __future__ import annotations

import hashlib
import re

from pytest_gpufabric.recording.nodefile import NodeFileInvalid, first_edited_entry

PREFIX = "# gpufabric-integrity: "
ALGORITHM = "sha256"
_LINE = re.compile(r"# gpufabric-integrity: sha256=([0-9a-f]{64}) bytes=(\d+)\n?")
_NAMES_LINE = re.compile(r"\bline \d+")


def seal(body: str) -> str:
    """``body`` followed by its integrity line."""
    data = body.encode("utf-8")
    return f"{body}{PREFIX}{ALGORITHM}={hashlib.sha256(data).hexdigest()} bytes={len(data)}\n"


def unseal(text: str, node: str, *, required: bool) -> str:
    """The text before the integrity line, once checked; ``NodeFileInvalid`` (with a line number) for a file that
    was changed, or that has no integrity line where one is ``required``."""
    start = text.rfind("\n", 0, len(text) - 1) + 1  # the last line
    last = text[start:]
    if not last.startswith(PREFIX):
        if required:
            raise NodeFileInvalid(_without_line(text, node, text.count("\n", 0, start) + 1))
        return text
    match = _LINE.fullmatch(last)
    line = text.count("\n", 0, start) + 1
    if match is None:
        raise NodeFileInvalid(f"line {line}: the integrity line is not 'sha256=<64 hex digits> bytes=<number>'")
    body = text[:start]
    data = body.encode("utf-8")
    if len(data) != int(match.group(2)):
        raise NodeFileInvalid(f"line {line}: the text before the integrity line has {len(data)} bytes, it was written "
                              f"with {match.group(2)} (cut or extended)")
    if hashlib.sha256(data).hexdigest() != match.group(1):
        raise NodeFileInvalid(first_edited_entry(body, node) or f"lines 1-2 or {line}: changed after the file was "
                              "written (every command entry still matches its digest)")
    return body


def _without_line(text: str, node: str, last: int) -> str:
    """Why a file without its integrity line is refused: its invalid YAML where that names a line, else its last
    line (and what else is wrong with it)."""
    problem = first_edited_entry(text, node)
    if problem is not None and _NAMES_LINE.search(problem):
        return problem
    return f"line {last}: the file ends without its integrity line (cut short, or not written by gpufabric)" + (
        f"; {problem}" if problem else "")


def is_sealed(text: str) -> bool:
    """Whether ``text`` ends with an integrity line (checked or not)."""
    start = text.rfind("\n", 0, len(text) - 1) + 1
    return text.startswith(PREFIX, start)
