"""The real tool outputs kept under fixtures/outputs/<tool>/, for the tests of parsers and checks."""

from __future__ import annotations

from pathlib import Path

OUTPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"


def read_output(tool: str, name: str) -> str:
    """A raw output file, byte for byte (CRLF and escape sequences kept)."""
    with open(OUTPUTS / tool / name, encoding="utf-8", newline="") as handle:
        return handle.read()
