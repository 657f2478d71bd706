"""``cat /proc/[0-9]*/comm``: the command name of every process, as the kernel keeps it (a program's name cut to
15 characters: ``nv-fabricmanager`` runs as ``nv-fabricmanage``; kernel workers add their queue's name). What
``systemctl is-active`` tells of a daemon, on a node without systemd's tools."""

from __future__ import annotations

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "proc-comm"
TASK_COMM_LEN = 15  # the kernel's TASK_COMM_LEN (16) less the terminating NUL


@parser(TOOL, "cat /proc/[0-9]*/comm: the command names of the running processes")
def parse_proc_comm(text: str) -> frozenset[str]:
    names = frozenset(line.strip() for line in clean_lines(TOOL, text) if line.strip())
    errors = sorted(name for name in names if name.startswith("cat: /proc/"))  # stderr mixed into the output
    if errors:
        fail(TOOL, f"an error message among the process names: {errors[0]!r}")
    return names
