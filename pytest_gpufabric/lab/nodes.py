"""How the lab's parts name a node, and what fault injection needs of a running lab (``Lab`` provides it)."""

from __future__ import annotations

from typing import Protocol

from pytest_gpufabric.lab.sshd import SshdProcess
from pytest_gpufabric.lab.topology import LabPlan, NodePlan

NodeRef = int | str
"""A node: its 0-based index in ``Lab.nodes`` (``0`` is ``node01``) or its name."""


class RunningLab(Protocol):
    """A lab that is up: its plan, its nodes by reference and each node's sshd."""

    @property
    def plan(self) -> LabPlan: ...

    def node(self, ref: NodeRef) -> NodePlan: ...

    def sshd(self, ref: NodeRef) -> SshdProcess: ...
