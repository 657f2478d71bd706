"""YAML text for recordings: literal block scalars for multi-line text, exact round trips.

PyYAML's emitters refuse literal blocks for text containing tabs (common in ``ethtool`` and
``ibv_devinfo`` output), so block scalars are written here and every other scalar by PyYAML itself.
Text whose lines end in blanks, or that holds control characters, is written double-quoted with
escapes instead: whitespace-trimming editors and hooks cannot then alter a recorded output.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

# Characters a literal block may hold besides printable text: tab and line feed only.
_NOT_BLOCK_SAFE = re.compile(r"[\u2028\u2029]|[^\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_BLANK_BEFORE_BREAK = re.compile(r"[ \t](?:\n|\Z)")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def load_yaml(text: str) -> Any:
    """Parse one YAML document with the safe loader (the C one where available)."""
    return yaml.load(text, Loader=_Loader)  # a safe loader


def dump_yaml(data: Any) -> str:
    """A flow-free block YAML document of plain data, keys in insertion order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=2**30)


def storable_text(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes kept by ``surrogateescape``) replaced by
    U+FFFD, the replacement character: recordings are UTF-8 text."""
    return _SURROGATE.sub("\ufffd", text)


def scalar(value: str | int | float | None, indent: int, *, blocks: bool = True) -> str:
    """The text after ``key: `` for ``value`` in a block mapping indented by ``indent`` spaces.

    With ``blocks``, multi-line text becomes a literal block scalar whose lines are indented by
    ``indent + 2``; floats are written with three decimals."""
    if blocks and isinstance(value, str) and "\n" in value and block_safe(value):
        return _literal_block(value, indent + 2)
    if isinstance(value, float):
        return _float(value)
    line = dump_yaml({"k": value})
    return line[len("k: ") :].rstrip("\n")


def block_safe(text: str) -> bool:
    """Whether ``text`` reads back unchanged from a literal block and survives whitespace trimming."""
    return not (_NOT_BLOCK_SAFE.search(text) or _BLANK_BEFORE_BREAK.search(text) or text.strip("\n") == "")


def _literal_block(text: str, indent: int) -> str:
    header = "|"
    first_line = text.lstrip("\n").split("\n", 1)[0]
    if text[0] == "\n" or first_line[0] in " \t":
        header += "2"  # content indentation relative to the key, which the first line cannot show
    body = text.rstrip("\n")
    trailing_breaks = len(text) - len(body)
    if trailing_breaks == 0:
        header += "-"
    elif trailing_breaks > 1:
        header += "+"
    pad = " " * indent
    lines = [f"{pad}{line}" if line else "" for line in text.split("\n")]
    if trailing_breaks:
        lines.pop()  # text.split leaves an empty string after the final line break
    return header + "\n" + "\n".join(lines)


def _float(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return f"{value:.3f}"
