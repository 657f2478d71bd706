"""The read-only command forms a switch may be sent, per switch OS; everything else is refused.

Switch access is an allow-list, not a deny-list: a command reaches a switch only when it matches one
of the forms below in full (``show`` commands with their structured-output pipe, and on SONiC the two
ways of reading the configuration database). No form can enter configuration mode, write a file or
chain a second command, so no configuration command is ever sent, live or in a recording.
"""

from __future__ import annotations

import re

from pytest_gpufabric.errors import GpufabricError

_PORT = r"[A-Za-z0-9/._:-]+"
_EOS = (
    r"show running-config",
    rf"show interfaces( {_PORT})?( status)?( \| json)?",
    r"show interfaces counters( discards| errors)?( \| json)?",
    rf"show priority-flow-control( interfaces {_PORT})?( counters( watchdog)?| status)?( \| json)?",
    r"show version( \| json)?",
    r"show lldp neighbors( \| json)?",  # CAB-001
    r"show mac address-table",  # CAB-001
)
_SONIC = (
    r"show interfaces (status|counters)",
    r"show pfc (counters|priority)",
    r"show pfcwd (config|stats)",
    r"show queue counters",
    r"show version",
    r"sonic-cfggen -d --print-data",
    r"cat /etc/sonic/config_db\.json",
    r"show lldp (table|neighbors)",  # CAB-001
    r"show mac",  # CAB-001
)
_JUNOS_DISPLAY = r"( \| display (json|xml|set))?"
_JUNOS = (
    rf"show configuration( class-of-service| interfaces( {_PORT})?)?{_JUNOS_DISPLAY}",
    rf"show interfaces( extensive| queue| statistics)?( {_PORT})?( extensive)?{_JUNOS_DISPLAY}",
    rf"show class-of-service (interface|congestion-notification|forwarding-class|classifier|scheduler-map)( {_PORT})?"
    rf"{_JUNOS_DISPLAY}",
    rf"show version{_JUNOS_DISPLAY}",
    r"show lldp neighbors",  # CAB-001
    r"show ethernet-switching table",  # CAB-001
)
READ_ONLY_FORMS: dict[str, tuple[re.Pattern[str], ...]] = {
    os_name: tuple(re.compile(form) for form in forms)
    for os_name, forms in (("arista", _EOS), ("sonic", _SONIC), ("juniper", _JUNOS))
}


class ConfigurationRefused(GpufabricError):
    """A command that is not one of the switch OS's read-only forms was about to be sent to a switch."""


def is_read_only(switch_os: str, command: str) -> bool:
    """Whether ``command`` matches one of the read-only forms of ``switch_os`` in full."""
    return any(form.fullmatch(command) for form in READ_ONLY_FORMS.get(switch_os, ()))


def require_read_only(switch: str, switch_os: str, command: str) -> None:
    """Raise ``ConfigurationRefused`` unless ``command`` is a read-only form of ``switch_os``."""
    if not is_read_only(switch_os, command):
        raise ConfigurationRefused(
            f"{switch}: refusing to send {command!r}: not one of the read-only {switch_os} command forms "
            "(pytest_gpufabric/switches/readonly.py)"
        )
