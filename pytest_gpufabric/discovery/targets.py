"""The nodes to discover: a nodeset (``node[01-64,70]``, ClusterShell syntax) or a hostfile."""

from __future__ import annotations

import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ClusterShell.NodeSet import NodeSet, NodeSetException

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.inventory import rules


@dataclass(frozen=True)
class Target:
    """A node to read: its inventory name and the address SSH connects to."""

    name: str
    address: str


def expand_nodeset(text: str) -> list[str]:
    """The node names of a nodeset, in its order; a one-line UsageError for bad syntax."""
    try:
        return list(NodeSet(text))
    except NodeSetException as exc:
        raise UsageError(f"bad nodeset {text!r}: {exc}") from None


def fold(names: Iterable[str]) -> str:
    """Node names folded as Slurm and ClusterShell write them: ``node[01-03,07]``."""
    return str(NodeSet.fromlist(list(names)))


def checked_target(name: str, address: str, where: str) -> Target:
    """The target, its name and address validated (they reach a shell and the inventory)."""
    try:
        return Target(rules.machine_name(name), rules.host(address))
    except rules.Invalid as exc:
        raise UsageError(f"{where}: {exc}") from None


LOCAL_ADDRESS = "127.0.0.1"  # local transport: every node is this machine; the address is never connected to


def this_machine() -> Target:
    """This machine under its short host name (the first label, as ``hostname -s`` and Slurm name nodes), for
    ``--transport local`` without ``--nodes``."""
    name = socket.gethostname()
    for candidate in (name.split(".", 1)[0], name):
        try:
            return Target(rules.machine_name(candidate), LOCAL_ADDRESS)
        except rules.Invalid:
            continue
    raise UsageError(f"this machine's host name {name!r} is not a valid node name: give --nodes NAME")


def local_targets(targets: list[Target]) -> list[Target]:
    """``--transport local``: the named nodes are all this machine, reached without any address."""
    return [Target(target.name, LOCAL_ADDRESS) for target in targets]


def targets_from_nodeset(text: str) -> list[Target]:
    """Each node of the nodeset, reached at its own name."""
    return [checked_target(name, name, "--nodes") for name in expand_nodeset(text)]


def targets_from_hostfile(path: Path) -> list[Target]:
    """A hostfile: one node per line, ``NAME [ADDRESS]`` (NAME may be a nodeset when no address follows);
    ``#`` starts a comment."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read hostfile {path}: {exc.strerror}") from None
    targets: list[Target] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        where = f"{path}:{number}"
        if len(words) == 1:
            targets += [checked_target(name, name, where) for name in expand_nodeset(words[0])]
        elif len(words) == 2:
            targets.append(checked_target(words[0], words[1], where))
        elif words:
            raise UsageError(f"{where}: expected 'NAME [ADDRESS]', found {raw.strip()!r}")
    names = [target.name for target in targets]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UsageError(f"{path}: node listed twice: {fold(repeated)}")
    if not targets:
        raise UsageError(f"{path}: no node listed")
    return targets
