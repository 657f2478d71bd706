"""Registry of parsers by tool name, used by ``gpufabric parse TOOL FILE``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

ParserFunc = Callable[[str], Any]


@dataclass(frozen=True)
class ParserInfo:
    tool: str
    summary: str
    func: ParserFunc


class ParserRegistry:
    """Maps a tool name (``lspci-vvv``, ``niccli-qos``...) to the parser of its output."""

    def __init__(self) -> None:
        self._parsers: dict[str, ParserInfo] = {}

    def register(self, tool: str, summary: str) -> Callable[[ParserFunc], ParserFunc]:
        def decorate(func: ParserFunc) -> ParserFunc:
            if tool in self._parsers:
                raise ValueError(f"parser {tool!r} registered twice")
            self._parsers[tool] = ParserInfo(tool, summary, func)
            return func

        return decorate

    def get(self, tool: str) -> ParserInfo:
        return self._parsers[tool]

    def tools(self) -> list[ParserInfo]:
        return [self._parsers[name] for name in sorted(self._parsers)]


PARSERS = ParserRegistry()
parser = PARSERS.register


def to_plain(value: Any) -> Any:
    """Facts (dataclasses, tuples, enums) as JSON-ready plain data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [to_plain(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if hasattr(value, "value") and hasattr(value, "name") and type(value).__module__ != "builtins":
        return value.value
    return value
