"""Runs read-only commands on one node for discovery and baseline, keeping what did not answer and what could
not be read.

Two kinds of trouble are kept apart: a command that did not answer (the tool is absent, or has nothing: a
``note``) and an output that answered but could not be read (a ``Gap`` of one facet: LLDP, RDMA links, one
NIC's link speed...). A gap costs only its facet; the node is still written, with the gap commented where the
facet would have been. Only the facets a node's identity needs (its GPUs) are read without a facet name, and
an output of theirs that cannot be read fails the node.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pytest_gpufabric.commands import sh
from pytest_gpufabric.errors import ParseError, RecordingError
from pytest_gpufabric.parsers.pci_path import PciDevicePath, parse_pci_device_path
from pytest_gpufabric.parsers.reading import Parsed, facts_of
from pytest_gpufabric.transport.base import CommandResult, Transport

T = TypeVar("T")
ITEM = "discover"  # the recording's item name for these commands
PCI_PATH = "PCIe path"


def pci_path_command(bdf: str) -> str:
    return sh("readlink", "-f", f"/sys/bus/pci/devices/{bdf}")


@dataclass(frozen=True)
class Gap:
    """A facet of a node that answered but could not be read: which facet, by which command, and why."""

    facet: str
    command: str
    reason: str

    def describe(self) -> str:
        return f"{self.facet}: `{self.command}` could not be read ({self.reason})"


@dataclass
class NodeReader:
    """Commands on one node; ``notes`` collect the commands that did not answer (tool absent, no data),
    ``gaps`` the facets whose output could not be read."""

    transport: Transport
    node: str
    timeout_s: float
    notes: list[str] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)

    def run(self, command: str) -> CommandResult:
        return self.transport.run(self.node, command, self.timeout_s, item=ITEM)

    def answer(
        self, command: str, parse: Callable[[str], Any], ok_codes: tuple[int, ...] = (0,), *, facet: str | None = None
    ) -> Any:
        """The facts of the parsed output, or None (noted) when the command failed: the tool is absent or has
        nothing. Lines of the output the parser did not understand are noted (they cost only their facts).
        An output that cannot be parsed is a gap of ``facet`` (None returned); without a facet (a fact the
        node's identity needs) it raises the parser's ParseError. Replaying a recording made before a facet was
        read, the facet's command is noted as not recorded."""
        try:
            result = self.run(command)
        except RecordingError as exc:
            if facet is None:
                raise
            self.notes.append(f"`{command}` is not in the recording ({exc.reason.split(';')[0]})")
            return None
        if result.exit_code not in ok_codes:
            reason = (result.stderr or result.stdout).strip().splitlines()
            self.notes.append(f"`{command}` exited {result.exit_code}" + (f": {reason[-1][:120]}" if reason else ""))
            return None
        try:
            parsed = parse(result.stdout)
        except ParseError as exc:
            if facet is None:
                raise
            self.gaps.append(Gap(facet, command, exc.reason))
            return None
        if isinstance(parsed, Parsed) and parsed.unread:
            first = parsed.unread[0].describe()
            more = f" and {len(parsed.unread) - 1} more" if len(parsed.unread) > 1 else ""
            self.notes.append(f"`{command}`: not understood, {first}{more}")
        return facts_of(parsed)

    def gap(self, facet: str) -> Gap | None:
        """The gap of ``facet``, if its output could not be read."""
        return next((gap for gap in self.gaps if gap.facet == facet), None)

    def pci_path(self, bdf: str | None) -> PciDevicePath | None:
        return None if bdf is None else self.answer(pci_path_command(bdf), parse_pci_device_path, facet=PCI_PATH)
