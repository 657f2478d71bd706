"""The ``| display set`` form of a hierarchical Junos configuration, written independently of the parser (a test
helper): one ``set`` line per leaf statement, its path the blocks above it; a bracketed list either kept on one
line or given one value per line (``fill-level 55`` / ``fill-level 90``), as the two ways the form is seen; an
``inactive:`` block or statement becomes a ``deactivate`` line after its ``set`` lines."""

from __future__ import annotations

import re

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\[|\]|[^\s\[\]";]+')


def display_set(hierarchical: str, *, split_lists: bool) -> str:
    path: list[str] = []
    out: list[str] = []
    deactivated: list[str] = []
    pending = ""
    for raw in hierarchical.split("\n"):
        text = re.sub(r"\s*##.*$", "", raw.strip())
        if pending:
            text, pending = pending + " " + text, ""
        if not text or text.startswith(("#", "/*", "*")):
            continue
        if text.count("[") > text.count("]") and not text.endswith(("{", ";")):
            pending = text
            continue
        inactive = text.startswith("inactive: ")
        text = re.sub(r"^(inactive|protect): ", "", text)
        if text == "}":
            path.pop()
            continue
        words = _TOKEN.findall(text[:-1])
        if text.endswith("{"):
            path.append(" ".join(words))
            if inactive:
                deactivated.append(" ".join(path))
            continue
        statement = " ".join(path + [" ".join(words)]) if path else " ".join(words)
        if inactive:
            deactivated.append(statement)
        if split_lists and words[:1] == ["class"] and "queue-num" in words:  # a class's attributes one per line
            attributes, rest = [], words[2:]
            while rest:
                take = 1 if rest[0] == "no-loss" else 2
                attributes.append(rest[:take])
                rest = rest[take:]
            out.extend(f"set {' '.join(path + words[:2] + attribute)}" for attribute in reversed(attributes))
        elif split_lists and "[" in words:
            key = words[:words.index("[")]
            values = [w for w in words[words.index("[") + 1:] if w != "]"]
            out.extend(f"set {' '.join(path + key + [value])}" for value in values)
        else:
            out.append(f"set {statement}")
    return "\n".join(out + [f"deactivate {path}" for path in deactivated]) + "\n"
