"""Fault injection on a running lab. Every fault returns an ``AppliedFault`` that can be reverted (also
as a context manager); ``Faults.revert_all`` undoes everything still applied, newest first."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Literal

from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.iproute import ip, ip_json, run
from pytest_gpufabric.lab.nodes import NodeRef, RunningLab
from pytest_gpufabric.lab.sshd import generate_key

if TYPE_CHECKING:
    from typing_extensions import Self

LinkSide = Literal["switch", "node"]


@dataclass
class AppliedFault:
    """One injected fault; ``revert()`` restores the lab (idempotent)."""

    description: str
    _undo: Callable[[], object] = field(repr=False)
    reverted: bool = False

    def revert(self) -> None:
        if not self.reverted:
            self._undo()
            self.reverted = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.revert()


class Faults:
    """Faults of one lab; ``node`` is an index into ``lab.nodes`` (0-based) or a node name."""

    def __init__(self, lab: RunningLab) -> None:
        self._lab = lab
        self._applied: list[AppliedFault] = []

    @property
    def applied(self) -> tuple[AppliedFault, ...]:
        return tuple(f for f in self._applied if not f.reverted)

    def revert_all(self) -> None:
        """Revert every fault still applied, newest first."""
        while self._applied:
            self._applied.pop().revert()

    def _record(self, description: str, undo: Callable[[], object]) -> AppliedFault:
        fault = AppliedFault(description, undo)
        self._applied.append(fault)
        return fault

    def link_down(
        self, node: NodeRef, rail: int, side: LinkSide = "switch"
    ) -> AppliedFault:
        """Take the rail-``rail`` link of ``node`` down. ``switch``: the leaf's port goes down (the node's
        NIC loses carrier, like a pulled cable); ``node``: the NIC is set administratively down."""
        plan = self._lab.node(node)
        nic = plan.nic(rail)
        if side == "switch":
            leaf = self._lab.plan.leaf_namespace
            ip("link", "set", "dev", nic.leaf_port, "down", netns=leaf)

            def undo() -> None:
                ip("link", "set", "dev", nic.leaf_port, "up", netns=leaf)

        else:
            ip("link", "set", "dev", nic.netdev, "down", netns=plan.namespace)

            def undo() -> None:
                # An administrative down deletes the routes through the NIC: put the table's route back.
                ip("link", "set", "dev", nic.netdev, "up", netns=plan.namespace)
                ip(
                    "route",
                    "replace",
                    "default",
                    "via",
                    str(nic.gateway),
                    "dev",
                    nic.netdev,
                    "table",
                    str(nic.route_table),
                    netns=plan.namespace,
                )

        return self._record(f"{plan.name} rail {rail} link down ({side} side)", undo)

    def mtu(self, node: NodeRef, rail: int, mtu: int) -> AppliedFault:
        """Set the MTU of ``node``'s rail-``rail`` NIC (the leaf keeps its MTU)."""
        plan = self._lab.node(node)
        nic = plan.nic(rail)
        links = ip_json("link", "show", "dev", nic.netdev, netns=plan.namespace)
        if len(links) != 1 or "mtu" not in links[0]:
            raise LabError(f"cannot read the MTU of {plan.name}/{nic.netdev}")
        old = str(links[0]["mtu"])
        ip("link", "set", "dev", nic.netdev, "mtu", str(mtu), netns=plan.namespace)
        return self._record(
            f"{plan.name}/{nic.netdev} MTU {old} -> {mtu}",
            lambda: ip(
                "link", "set", "dev", nic.netdev, "mtu", old, netns=plan.namespace
            ),
        )

    def wrong_rule(
        self, node: NodeRef, rail: int, table: int | None = None
    ) -> AppliedFault:
        """Replace ``from <NIC ip> lookup <its table>`` by a rule to ``table`` (default: the next rail's
        table, wrapping to the first, a copy-paste mistake; with one rail, an empty table)."""
        plan = self._lab.node(node)
        nic = plan.nic(rail)
        rails = len(plan.nics)
        first_table = nic.route_table - rail
        next_rail_table = (
            first_table + (rail + 1) % rails if rails > 1 else first_table + rails
        )
        wrong = table if table is not None else next_rail_table
        if wrong == nic.route_table:
            raise LabError(
                f"table {wrong} is the right table of {plan.name}/{nic.netdev}"
            )
        source = str(nic.ipv4.ip)
        ip(
            "rule",
            "delete",
            "from",
            source,
            "table",
            str(nic.route_table),
            netns=plan.namespace,
        )
        ip("rule", "add", "from", source, "table", str(wrong), netns=plan.namespace)

        def undo() -> None:
            ip(
                "rule",
                "delete",
                "from",
                source,
                "table",
                str(wrong),
                netns=plan.namespace,
            )
            ip(
                "rule",
                "add",
                "from",
                source,
                "table",
                str(nic.route_table),
                netns=plan.namespace,
            )

        return self._record(
            f"{plan.name}: rule from {source} -> table {wrong} (was {nic.route_table})",
            undo,
        )

    def stop_sshd(self, node: NodeRef) -> AppliedFault:
        """Stop the node's sshd with SIGTERM (open sessions live on); revert starts it again."""
        plan = self._lab.node(node)
        sshd = self._lab.sshd(plan.name)
        sshd.stop()
        return self._record(f"{plan.name}: sshd stopped", sshd.start)

    def kill_sshd(self, node: NodeRef, *, sessions: bool = True) -> AppliedFault:
        """SIGKILL the node's sshd now, with its open sessions unless ``sessions`` is False (the test picks
        the moment, e.g. from a timer thread while a command runs); revert starts it again."""
        plan = self._lab.node(node)
        sshd = self._lab.sshd(plan.name)
        sshd.kill(sessions=sessions)
        return self._record(f"{plan.name}: sshd killed", sshd.start)

    def change_host_key(self, node: NodeRef) -> AppliedFault:
        """Give the node a new host key and restart its sshd; the lab's known_hosts keeps the old one."""
        plan = self._lab.node(node)
        sshd = self._lab.sshd(plan.name)
        key = sshd.files.host_key
        backup = key.with_name(key.name + ".orig")
        shutil.copy2(key, backup)
        shutil.copy2(key.with_suffix(".pub"), backup.with_name(backup.name + ".pub"))
        sshd.stop()
        generate_key(key, f"{plan.name} replaced host key")
        sshd.start()

        def undo() -> None:
            sshd.stop()
            shutil.move(backup, key)
            shutil.move(backup.with_name(backup.name + ".pub"), key.with_suffix(".pub"))
            sshd.start()

        return self._record(f"{plan.name}: host key replaced", undo)

    def missing_program(self, node: NodeRef, program: str) -> AppliedFault:
        """Take ``program`` away from the node's sessions, as on a node where it is not installed: /dev/null (not
        executable: running it fails, and it is no program found on the PATH) is bind-mounted over its path in
        the private mount namespace of the node's sshd, which every new session inherits; revert unmounts it."""
        plan = self._lab.node(node)
        pid = self._lab.sshd(plan.name).pid
        path = shutil.which(program, path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        if pid is None or path is None:
            raise LabError(f"{plan.name}: cannot hide {program!r} (sshd running: {pid is not None}, found: {path})")
        run(["nsenter", "-t", str(pid), "-m", "mount", "--bind", "/dev/null", path])
        return self._record(f"{plan.name}: {program} hidden ({path})",
                            lambda: run(["nsenter", "-t", str(pid), "-m", "umount", path], check=False))
