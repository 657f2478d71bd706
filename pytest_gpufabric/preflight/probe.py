"""One command per node that probes every requirement it needs, and the reading of its answer.

The command prints one line per requirement, ``<index> <1|0>`` in the order asked (1: it holds); it reads only
(``command -v`` and ``-x``, ``test -e``, ``--help``, ``ldd``, ``id -u``, ``dmesg`` to /dev/null) and every word is quoted."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.preflight.requirements import Probe, Requirement

_ANSWER = re.compile(r"^(\d+) ([01])$")


def condition(probe: Probe) -> str:
    """A shell condition that holds exactly when the probe does (its output discarded)."""
    if probe.kind == "program":  # bash's command -v also names a file on the PATH that cannot be executed
        return f"[ -x \"$(command -v {sh(probe.words[0])})\" ]"
    if probe.kind == "file":
        return f"test -e {sh(probe.words[0])}"
    if probe.kind == "option":
        name, option = probe.words
        return f"{sh(name)} --help 2>&1 | grep -q -e {sh(option)}"
    if probe.kind == "links":
        name, library = probe.words
        return f"ldd \"$(command -v {sh(name)})\" 2>/dev/null | grep -q -e {sh(library)}"
    if probe.kind == "runs":
        return f"{sh(*probe.words)} >/dev/null 2>&1"
    if probe.kind == "root":
        return "[ \"$(id -u)\" = 0 ]"
    return "{ " + " || ".join(condition(alternative) for alternative in probe.alternatives) + "; }"


def probe_command(requirements: Sequence[Requirement]) -> str:
    """The node's command (bash): one ``<index> <1|0>`` line per requirement, printed at once at the end (one SSH
    data packet instead of one a line: each costs the controller about 0.1 ms of CPU)."""
    tests = "\n".join(f"if {condition(r.probe)}; then a=1; else a=0; fi; r=\"${{r}}{i} $a\"$'\\n'"
                      for i, r in enumerate(requirements))
    return f"r=''\n{tests}\nprintf '%s' \"$r\""


@dataclass(frozen=True)
class ProbeAnswer:
    """Whether each asked requirement holds (by key), and the lines the reading did not understand."""

    holds: dict[str, bool]
    unread: tuple[str, ...] = ()


def read_answer(stdout: str, requirements: Sequence[Requirement]) -> ProbeAnswer:
    """What the probe printed: a line that is not ``<index> <1|0>`` for an asked index is unread (and its
    requirement stays unanswered); nothing is guessed."""
    holds: dict[str, bool] = {}
    unread = []
    for line in stdout.splitlines():
        match = _ANSWER.match(line.strip())
        if match is None or int(match.group(1)) >= len(requirements):
            if line.strip():
                unread.append(line.strip())
            continue
        holds[requirements[int(match.group(1))].key] = match.group(2) == "1"
    return ProbeAnswer(holds, tuple(unread))
