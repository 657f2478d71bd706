"""The open-files limit a transport to many machines raises, and the error when a controller runs out anyway.

Each case runs in a child process: a lowered hard limit cannot be raised again by an unprivileged process."""

from __future__ import annotations

import errno
import resource
import subprocess
import sys

from pytest_gpufabric.transport.open_files import descriptors_needed
from pytest_gpufabric.transport.ssh import describe_ssh_failure

CHILD = """
import resource, warnings
from pytest_gpufabric.transport.open_files import raise_open_files_limit
resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    raise_open_files_limit({machines})
print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
for warning in caught:
    print(type(warning.message).__name__, warning.message)
"""


def _in_child(soft: int, hard: int, machines: int) -> list[str]:
    code = CHILD.format(soft=soft, hard=hard, machines=machines)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.splitlines()


def _hard_limit() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 1 << 20 if hard == resource.RLIM_INFINITY else hard


def test_the_soft_limit_is_raised_to_what_the_machines_need() -> None:
    needed = descriptors_needed(100)
    assert needed == 1012
    assert _in_child(64, max(_hard_limit(), needed), 100) == [str(needed)]


def test_a_soft_limit_already_high_enough_is_left_alone() -> None:
    assert _in_child(1100, max(_hard_limit(), 1100), 100) == ["1100"]


def test_a_hard_limit_below_the_need_is_reached_and_named() -> None:
    lines = _in_child(64, 300, 100)
    assert lines[0] == "300"
    assert lines[1].startswith("OpenFilesLimitWarning 100 machines may need 1012 open files at once, but this process "
                               "may open at most 300 (its hard limit): raise it (ulimit -Hn")


def test_running_out_of_open_files_blames_the_controller_not_the_node() -> None:
    message = describe_ssh_failure(OSError(errno.EMFILE, "Too many open files"))
    assert message == ("the controller ran out of open files (Too many open files), not the node: raise the "
                       "open-files limit (ulimit -n)")
    assert describe_ssh_failure(OSError(errno.ECONNREFUSED, "Connection refused")) == "unreachable: Connection refused"
