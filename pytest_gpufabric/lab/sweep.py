"""Removing labs: one by id, the stale ones (owner process gone), or all of this project's labs.

Only namespaces whose names match ``NAMESPACE_PATTERN`` (``gpufabric-lab-<6 hex>-<role>``) are touched;
the processes removed are those inside such namespaces, killed by PID.
"""

from __future__ import annotations

import os
import shutil
import signal
import time

from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.iproute import (
    delete_namespace,
    ip,
    list_namespaces,
    namespace_pids,
)
from pytest_gpufabric.lab.registry import is_stale, lab_dir, labs_root
from pytest_gpufabric.lab.topology import LAB_ID_PATTERN, NAMESPACE_PATTERN

KILL_WAIT_S = 5.0


def lab_namespaces(lab_id: str) -> list[str]:
    """The existing namespaces of one lab."""
    return [
        ns
        for ns in list_namespaces()
        if (m := NAMESPACE_PATTERN.match(ns)) and m["lab_id"] == lab_id
    ]


def known_lab_ids() -> list[str]:
    """Ids of every lab with a namespace or a directory on this machine."""
    ids = {
        m["lab_id"] for ns in list_namespaces() if (m := NAMESPACE_PATTERN.match(ns))
    }
    root = labs_root()
    if root.is_dir():
        ids.update(
            p.name
            for p in root.iterdir()
            if p.is_dir() and LAB_ID_PATTERN.match(p.name)
        )
    return sorted(ids)


def kill_namespace_processes(netns: str) -> None:
    """SIGKILL every process inside ``netns`` (by PID) and wait until none is left."""
    deadline = time.monotonic() + KILL_WAIT_S
    while pids := namespace_pids(netns):
        if time.monotonic() > deadline:
            raise LabError(
                f"processes {pids} in namespace {netns} survived SIGKILL for {KILL_WAIT_S} s"
            )
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)


def remove_lab(lab_id: str) -> None:
    """Remove one lab: its processes, namespaces, root-namespace veth and directory."""
    if not LAB_ID_PATTERN.match(lab_id):
        raise LabError(f"not a lab id: {lab_id!r}")
    namespaces = lab_namespaces(lab_id)
    for netns in namespaces:
        kill_namespace_processes(netns)
    for netns in namespaces:
        delete_namespace(netns)
    root_veth = f"gfl-{lab_id}"
    # The kernel removes the veth with its peer's namespace, in its own time: gone between the two is removed.
    deleted = ip("link", "delete", "dev", root_veth, check=False)
    if deleted.returncode != 0 and ip("link", "show", "dev", root_veth, check=False).returncode == 0:
        raise LabError(f"ip link delete dev {root_veth} exited {deleted.returncode}: {deleted.stderr.strip()}")
    shutil.rmtree(lab_dir(lab_id), ignore_errors=True)
    left = lab_namespaces(lab_id)
    if left:
        raise LabError(f"lab {lab_id}: namespaces still present after removal: {left}")


def sweep_stale() -> list[str]:
    """Remove every lab whose owner process is gone; return their ids. Living labs are left alone."""
    removed = [lab_id for lab_id in known_lab_ids() if is_stale(lab_id)]
    for lab_id in removed:
        remove_lab(lab_id)
    return removed


def remove_all() -> list[str]:
    """Remove every lab of this project on this machine, living or not; return their ids."""
    removed = known_lab_ids()
    for lab_id in removed:
        remove_lab(lab_id)
    return removed
