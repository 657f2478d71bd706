"""The open-files limit a transport to many machines needs, raised as far as the system allows.

Each SSH connection holds a socket, and each command running on it a channel whose ``fileno()`` is a pipe (two
descriptors). A round of a pair check runs two commands per node at once (its servers and its clients): about 5
descriptors a node, so 256 nodes already need more than the soft limit of 1,024 that many distributions give a
session. Past the limit, connections and channels fail with "Too many open files" (measured on the many-node
loopback target at a soft limit of 1,024: 8 of 1,024 nodes failed to connect before any command ran). So a
transport raises its process's soft limit towards the hard limit (no privilege needed) before it connects, and
warns when even the hard limit is below what its machines need.
"""

from __future__ import annotations

import resource
import warnings

DESCRIPTORS_PER_MACHINE = 5  # its connection's socket, and two commands at once with a pipe each
SPARE_DESCRIPTORS = 512  # the run's own files: 256 lock files (exclusive.locks), results, recordings, reports, pipes


class OpenFilesLimitWarning(UserWarning):
    """The hard limit on open files is below what a transport to all the site's machines may need."""


def descriptors_needed(machines: int) -> int:
    """Open files a process may need at once with a connection to each of ``machines``."""
    return machines * DESCRIPTORS_PER_MACHINE + SPARE_DESCRIPTORS


def raise_open_files_limit(machines: int) -> int:
    """Raise this process's soft limit on open files to what ``machines`` connections need (at most the hard limit);
    the soft limit in force. Warns (OpenFilesLimitWarning) when the hard limit is lower than the need."""
    needed = descriptors_needed(machines)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return soft
    raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if raised > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    if raised < needed:
        warnings.warn(OpenFilesLimitWarning(
            f"{machines} machines may need {needed} open files at once, but this process may open at most {hard} "
            "(its hard limit): raise it (ulimit -Hn; LimitNOFILE= for a service) or commands will fail with "
            "'Too many open files'"), stacklevel=2)
    return raised
