"""``grep <symbol> /proc/kallsyms``: which module provides a kernel symbol (DRV-003 peer memory).

One ``<address> <type> <symbol> [<module>]`` line per symbol (a tab before the module in the kernel's own file,
spaces where a document reflowed it), read by the parsing rule: a line of another form costs only its own symbol
and is kept unread (``KernelSymbols.may_hold`` says whether such a line could name a symbol, so that a check never
reads "absent" from a line it did not understand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "kallsyms"
SYMBOL_LINE = re.compile(r"^([0-9a-fA-F]{8,16})\s+([A-Za-z])\s+(\S+)(?:\s+\[(\S+)\])?$")


@dataclass(frozen=True)
class KernelSymbol:
    address: str
    kind: str  # nm type letter: T/t text, R/r read-only data...
    name: str
    module: Optional[str]  # None for a symbol of the kernel image itself


@dataclass(frozen=True)
class KernelSymbols:
    symbols: tuple[KernelSymbol, ...]
    unread: tuple[str, ...] = ()  # the lines not understood, as printed

    def providers(self, name: str) -> frozenset[Optional[str]]:
        """Modules that define exactly ``name`` (None stands for the kernel image)."""
        return frozenset(symbol.module for symbol in self.symbols if symbol.name == name)

    def may_hold(self, name: str) -> bool:
        """True when a line not understood names ``name``: its absence from ``symbols`` is then not known."""
        return any(name in text for text in self.unread)


@parser(TOOL, "grep <symbol> /proc/kallsyms: address, type, name and providing module of each symbol")
def parse_kallsyms(text: str) -> Parsed[KernelSymbols]:
    """An empty grep result is a ParseError here; the check reads grep's exit status 1 as 'symbol absent'."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    symbols = []
    for line in reading.content():
        match = SYMBOL_LINE.match(line.stripped)
        if not match:
            reading.unread(line, "expected '<address> <type> <symbol> [module]'", line.stripped.split()[0])
            continue
        symbols.append(KernelSymbol(*match.groups()))
        reading.used(line)
    unread = tuple(u.text.strip() for u in reading.unread_lines())
    return reading.done(KernelSymbols(tuple(symbols), unread), nothing="no '<address> <type> <symbol> [module]' line")
