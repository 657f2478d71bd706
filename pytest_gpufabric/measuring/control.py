"""What keeps a run's traffic contained, as the round engine sees it.

- **The bound of a traffic test**: its expected duration (the profile's per-test time of the check) x
  ``BOUND_FACTOR``, at least ``BOUND_FLOOR_S``. Every command of a NIC-pair test gets at most what is left of it on
  its node (``timeout``), and the engine gives up on a test that has not ended ``WATCHDOG_SLACK_S`` after it. A
  check without a per-test time keeps its commands' own limits.
- **Down marks**: a NIC pair that could not exchange traffic (a client that could not connect, or did not end within
  the bound) has the link state of both NICs read (``/sys/class/net/<netdev>/operstate``); a NIC whose link is not up,
  or that failed ``NIC_DOWN_AFTER`` NIC pairs in a row, is marked down for the rest of the run with that cause, and its
  pending NIC pairs error at once.
- **The stop flag**: once the run stops, no NIC pair starts.
- **Node guards**: each command of a NIC pair runs with a PID file and leases on its node (``exclusive.leases``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.exclusive.down import DownMarks
from pytest_gpufabric.exclusive.leases import NodeGuard
from pytest_gpufabric.exclusive.stop import StopFlag
from pytest_gpufabric.transport.base import CommandResult

BOUND_FACTOR = 3.0
BOUND_FLOOR_S = 5.0
WATCHDOG_SLACK_S = 30.0  # the commands' own time on the node (kill grace, channel slack) and the stops after them
MIN_COMMAND_S = 2.0  # a command started near the end of the bound (a server's stop) still gets this much
NIC_DOWN_AFTER = 2  # NIC pairs in a row that could not exchange traffic before a NIC is marked down
UNREACHABLE = "Unreachable"  # the error kind of a NIC pair that could not exchange traffic
LINK_UP_STATES = ("up", "unknown")  # operstate of a link that carries traffic ("unknown": drivers without the state)


def traffic_bound(expected_s: float | None, factor: float = BOUND_FACTOR, floor_s: float = BOUND_FLOOR_S) -> float | None:
    """The bound of one traffic test of an expected duration (None: no expected duration, no bound)."""
    if expected_s is None:
        return None
    return max(floor_s, factor * expected_s)


def command_timeout(requested_s: float | None, left_s: float) -> float:
    """A command's time limit within a bound with ``left_s`` seconds left."""
    return max(MIN_COMMAND_S, left_s if requested_s is None else min(requested_s, left_s))


def operstate_command(netdev: str) -> str:
    """Read the kernel's view of a NIC's link (``up``, ``down``, ``lowerlayerdown``, ...)."""
    return sh("cat", f"/sys/class/net/{netdev}/operstate")


def link_down_state(result: CommandResult) -> str | None:
    """The state of a link that is not up, from ``operstate_command``'s result (None: up, or not known)."""
    state = result.stdout.strip()
    if not result.ok or not state or " " in state or state in LINK_UP_STATES:
        return None
    return state


@dataclass(frozen=True)
class RunControl:
    """The run's down marks and stop flag, each check's bound, and the guard of a NIC pair's command on a node."""

    marks: DownMarks
    stop: StopFlag
    bound_of: Callable[[str], float | None]  # check id -> bound of one NIC-pair test (None: the commands' own limits)
    guard_of: Callable[[str, Sequence[str]], NodeGuard]  # node, the NIC pair's resources -> its commands' guard there
