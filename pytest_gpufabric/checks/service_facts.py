"""Whether host services run: ``systemctl is-active``, else (no systemctl, or no systemd answering it) the
kernel's process table, and for ufw, which runs no daemon, its own ``ENABLED`` switch."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.checks.node_facts import tool_missing, unreadable
from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.parsers.proc_comm import TASK_COMM_LEN, parse_proc_comm
from pytest_gpufabric.parsers.ufw_conf import parse_ufw_conf

PROCESS_NAMES = "cat /proc/[0-9]*/comm"
UFW_CONF = "/etc/ufw/ufw.conf"
DAEMONS = {"firewalld": "firewalld", "nvidia-fabricmanager": "nv-fabricmanager"}  # service -> program (the kernel keeps its first 15 characters)
ACTIVE, INACTIVE = "active", "inactive"


@dataclass(frozen=True)
class ServiceStates:
    """The state of each asked service (``active``, ``inactive``, or systemctl's own word) and where it came from."""

    states: dict[str, str]
    source: str

    @property
    def active(self) -> list[str]:
        return [service for service, state in self.states.items() if state == ACTIVE]


def _ufw_state(gpufabric: CheckContext, node: str) -> str:
    result = gpufabric.run(node, sh("cat", UFW_CONF), cached=True)
    if result.exit_code != 0:
        if "No such file" in result.stderr:
            return INACTIVE  # ufw is not installed
        raise unreadable("systemctl", result)
    return ACTIVE if gpufabric.parse(parse_ufw_conf, result) else INACTIVE


def service_states(gpufabric: CheckContext, node: str, services: tuple[str, ...]) -> ServiceStates:
    """The states of ``services``; without systemctl's answer, a daemon is active when its process runs."""
    result = gpufabric.run(node, sh("systemctl", "is-active", *services), cached=True)
    if not tool_missing(result) and result.stdout.strip():
        answers = [line.strip() for line in result.stdout.splitlines() if line.strip()]
        if len(answers) != len(services):
            gpufabric.require(None, f"the state of {', '.join(services)} (systemctl answered: {result.stdout.strip()[:120]!r})")
        return ServiceStates(dict(zip(services, answers)), result.command)
    processes = gpufabric.run(node, PROCESS_NAMES, cached=True)
    if not processes.stdout.strip():
        raise unreadable("systemctl", processes)
    running = gpufabric.parse(parse_proc_comm, processes)
    states = {service: _ufw_state(gpufabric, node) if service == "ufw" else
              ACTIVE if DAEMONS[service][:TASK_COMM_LEN] in running else INACTIVE for service in services}
    return ServiceStates(states, f"/proc/<pid>/comm ({'systemctl not installed' if tool_missing(result) else 'systemd not answering'})")
