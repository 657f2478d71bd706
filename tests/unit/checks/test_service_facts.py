"""Service states: ``systemctl is-active``, else the process table and ufw's switch (real outputs)."""

from __future__ import annotations

import pytest

from pytest_gpufabric.checks.service_facts import PROCESS_NAMES, service_states
from pytest_gpufabric.errors import MeasurementMissing
from tests.outputs import read_output
from tests.unit.checks.answering_node import context

FIREWALLS = ("firewalld", "ufw")
PROCESSES = (read_output("proc-comm", "devhost_container.txt"), "", 0)
UFW_DEFAULT = (read_output("ufw-conf", "debian12_ufw_0.36.2_default.txt"), "", 0)


def test_systemctl_answers_first() -> None:
    gpufabric = context({"systemctl is-active firewalld ufw": ("active\ninactive\n", "", 3)})
    states = service_states(gpufabric, "h200", FIREWALLS)
    assert (states.active, states.source) == (["firewalld"], "systemctl is-active firewalld ufw")
    assert len(gpufabric.commands) == 1


def test_systemctl_with_a_missing_answer_is_an_error() -> None:
    with pytest.raises(MeasurementMissing, match="the state of firewalld, ufw"):
        service_states(context({"systemctl is-active firewalld ufw": ("inactive\n", "", 3)}), "h200", FIREWALLS)


@pytest.mark.parametrize("systemctl", [None, ("", "System has not been booted with systemd as init system (PID 1). Can't operate.\n", 1)],
                         ids=["not-installed", "no-systemd"])
def test_process_table_and_ufw_switch_without_systemctl(systemctl: tuple[str, str, int] | None) -> None:
    answers = {PROCESS_NAMES: PROCESSES, "cat /etc/ufw/ufw.conf": UFW_DEFAULT}
    if systemctl is not None:
        answers["systemctl is-active firewalld ufw"] = systemctl
    states = service_states(context(answers), "h200", FIREWALLS)
    assert states.states == {"firewalld": "inactive", "ufw": "inactive"}
    assert states.source.startswith("/proc/<pid>/comm")


def test_a_running_daemon_is_active() -> None:
    running = (PROCESSES[0] + "firewalld\n", "", 0)  # the process name of firewalld's script
    states = service_states(context({PROCESS_NAMES: running}), "h200", ("firewalld",))
    assert states.active == ["firewalld"]


def test_fabric_manager_runs_under_its_cut_program_name() -> None:
    # nv-fabricmanager (16 characters) is nv-fabricmanage in the process table
    running = (PROCESSES[0] + "nv-fabricmanage\n", "", 0)
    assert service_states(context({PROCESS_NAMES: running}), "h200", ("nvidia-fabricmanager",)).active == ["nvidia-fabricmanager"]
    assert service_states(context({PROCESS_NAMES: PROCESSES}), "h200", ("nvidia-fabricmanager",)).active == []


def test_enabled_ufw_is_active() -> None:
    enabled = (UFW_DEFAULT[0].replace("ENABLED=no", "ENABLED=yes"), "", 0)
    states = service_states(context({PROCESS_NAMES: PROCESSES, "cat /etc/ufw/ufw.conf": enabled}), "h200", FIREWALLS)
    assert states.active == ["ufw"]


def test_no_ufw_installed_is_inactive() -> None:
    gone = ("", "cat: /etc/ufw/ufw.conf: No such file or directory\n", 1)
    states = service_states(context({PROCESS_NAMES: PROCESSES, "cat /etc/ufw/ufw.conf": gone}), "h200", FIREWALLS)
    assert states.states["ufw"] == "inactive"


def test_nothing_readable_names_systemctl() -> None:
    with pytest.raises(MeasurementMissing, match=r"systemctl is not installed \(exit 127\) and `cat /proc/\[0-9\]\*/comm` did not answer"):
        service_states(context({}), "h200", FIREWALLS)
