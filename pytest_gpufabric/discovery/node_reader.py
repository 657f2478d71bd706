"""Runs read-only commands on one node for discovery and baseline, keeping what did not answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from pytest_gpufabric.commands import sh
from pytest_gpufabric.parsers.pci_path import PciDevicePath, parse_pci_device_path
from pytest_gpufabric.transport.base import CommandResult, Transport

T = TypeVar("T")
ITEM = "discover"  # the recording's item name for these commands


def pci_path_command(bdf: str) -> str:
    return sh("readlink", "-f", f"/sys/bus/pci/devices/{bdf}")


@dataclass
class NodeReader:
    """Commands on one node; ``notes`` collect the commands that did not answer (tool absent, no data)."""

    transport: Transport
    node: str
    timeout_s: float
    notes: list[str] = field(default_factory=list)

    def run(self, command: str) -> CommandResult:
        return self.transport.run(self.node, command, self.timeout_s, item=ITEM)

    def answer(self, command: str, parse: Callable[[str], T], ok_codes: tuple[int, ...] = (0,)) -> T | None:
        """The parsed output, or None (noted) when the command failed: the tool is absent or has nothing.
        An output that cannot be parsed raises the parser's ParseError."""
        result = self.run(command)
        if result.exit_code not in ok_codes:
            reason = (result.stderr or result.stdout).strip().splitlines()
            self.notes.append(f"`{command}` exited {result.exit_code}" + (f": {reason[-1][:120]}" if reason else ""))
            return None
        return parse(result.stdout)

    def pci_path(self, bdf: str | None) -> PciDevicePath | None:
        return None if bdf is None else self.answer(pci_path_command(bdf), parse_pci_device_path)
