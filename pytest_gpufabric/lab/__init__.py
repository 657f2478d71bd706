"""A multi-node test lab built from Linux network namespaces: nodes with per-rail backend NICs behind a
layer-3 leaf namespace, an sshd per node on a management network, fault injection, and a site.yaml."""

from __future__ import annotations

from pytest_gpufabric.lab.errors import LabError, LabUnavailable
from pytest_gpufabric.lab.faults import AppliedFault, Faults
from pytest_gpufabric.lab.lab import Lab
from pytest_gpufabric.lab.nodes import NodeRef
from pytest_gpufabric.lab.sweep import remove_all, remove_lab, sweep_stale
from pytest_gpufabric.lab.topology import LabPlan, NicPlan, NodePlan

__all__ = [
    "AppliedFault",
    "Faults",
    "Lab",
    "LabError",
    "LabPlan",
    "LabUnavailable",
    "NicPlan",
    "NodePlan",
    "NodeRef",
    "remove_all",
    "remove_lab",
    "sweep_stale",
]
