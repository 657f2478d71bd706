"""Reads an inventory file into a YAML node tree (nodes keep their lines); file and syntax problems are logged."""

from __future__ import annotations

from pathlib import Path

import yaml

from pytest_gpufabric.inventory.problems import ProblemLog

FILE = "file"
SYNTAX = "YAML syntax"

# libyaml's composer when PyYAML has it (1,000 nodes compose in a second, not a minute); both keep the line
# of every node. A file libyaml refuses is composed again by the pure-Python one, whose words the messages use.
COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _line_of_offset(text: str, offset: int) -> int:
    return text.count("\n", 0, max(offset, 0)) + 1


def _read_text(path: Path, log: ProblemLog) -> str | None:
    if path.is_dir():
        log.add(0, FILE, "is a directory (expected a site.yaml file)")
        return None
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        log.add(0, FILE, "not found (expected the path of a site.yaml file)")
        return None
    except PermissionError:
        log.add(0, FILE, "cannot be read: permission denied")
        return None
    except OSError as error:
        log.add(0, FILE, f"cannot be read: {error.strerror or error}")
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        log.add(line, FILE, f"is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})")
        return None


def _character(character: int | str) -> str:
    code = ord(character) if isinstance(character, str) else character
    return f"{chr(code)!r} (U+{code:04X})"


def _syntax_problem(error: yaml.YAMLError, text: str, log: ProblemLog) -> None:
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else 0
        parts = [part for part in (error.context, error.problem) if part]
        log.add(line, SYNTAX, "; ".join(parts) or "syntax error")
    elif isinstance(error, yaml.reader.ReaderError):
        log.add(
            _line_of_offset(text, error.position),
            SYNTAX,
            f"character {_character(error.character)} is not allowed in a YAML file",
        )
    else:
        log.add(0, SYNTAX, str(error))


def read_yaml_tree(path: Path, log: ProblemLog) -> yaml.Node | None:
    """The root node of the file's single YAML document; None (with problems logged) if there is none."""
    text = _read_text(path, log)
    if text is None:
        return None
    try:
        root = yaml.compose(text, Loader=COMPOSER)
    except yaml.YAMLError:
        try:  # the pure-Python composer words its problems as the error messages document them
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as error:
            _syntax_problem(error, text, log)
            return None
    if root is None:
        log.add(1, FILE, "is empty (expected a mapping with at least version, site, profile and nodes)")
        return None
    return root
