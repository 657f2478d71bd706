"""``cat /proc/[0-9]*/comm``: the command name of every process, as the kernel keeps it (a program's name cut to
15 characters: ``nv-fabricmanager`` runs as ``nv-fabricmanage``; kernel workers add their queue's name). What
``systemctl is-active`` tells of a daemon, on a node without systemd's tools. An error of ``cat`` mixed into the
output (a process that ended meanwhile) is kept unread; the names around it are read."""

from __future__ import annotations

import re

from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser

TOOL = "proc-comm"
TASK_COMM_LEN = 15  # the kernel's TASK_COMM_LEN (16) less the terminating NUL
CAT_ERROR = re.compile(r"^cat: /proc/")


@parser(TOOL, "cat /proc/[0-9]*/comm: the command names of the running processes")
def parse_proc_comm(text: str) -> Parsed[frozenset[str]]:
    reading = Reading(TOOL, text)
    names = set()
    for line in reading.content():
        if CAT_ERROR.match(line.stripped):
            reading.unread(line, "an error message among the process names (a process that ended meanwhile?)")
        else:
            names.add(line.stripped)
            reading.used(line)
    return reading.done(frozenset(names), nothing="no process name")
