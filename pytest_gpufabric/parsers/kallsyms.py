"""``grep <symbol> /proc/kallsyms``: which module provides a kernel symbol (DRV-003 peer memory)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

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

    def providers(self, name: str) -> frozenset[Optional[str]]:
        """Modules that define exactly ``name`` (None stands for the kernel image)."""
        return frozenset(symbol.module for symbol in self.symbols if symbol.name == name)


@parser(TOOL, "grep <symbol> /proc/kallsyms: address, type, name and providing module of each symbol")
def parse_kallsyms(text: str) -> KernelSymbols:
    """An empty grep result is a ParseError here; the check reads grep's exit status 1 as 'symbol absent'."""
    symbols = []
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = SYMBOL_LINE.match(line.strip())
        if not match:
            fail(TOOL, f"expected '<address> <type> <symbol> [module]', found {line.strip()!r}")
        symbols.append(KernelSymbol(*match.groups()))
    return KernelSymbols(tuple(symbols))
