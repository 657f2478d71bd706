"""``gpufabric baseline``: the versions and settings of a known-good node, as site overrides of the profile.

For sites whose firmware or drivers differ from the documents on purpose: each value the profile judges
(driver and firmware versions, ROCm or the NVIDIA driver, bnxt_re.conf QoS values, NIC NVM options, the
congestion-control mode) is read on the node with the command its check runs, and written under
``thresholds:`` with a comment naming the node, the command and the profile's own value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_gpufabric.checks.drivers import firmware_version
from pytest_gpufabric.checks.qos import CONF_KEYS, cc_mode_path
from pytest_gpufabric.commands import sh
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.discovery.probe import FoundNic, NodeFacts
from pytest_gpufabric.discovery.yaml_scalar import scalar
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.parsers.bnxt_re_conf import parse_bnxt_re_conf
from pytest_gpufabric.parsers.ethtool import parse_ethtool_driver
from pytest_gpufabric.parsers.kmod import parse_modinfo
from pytest_gpufabric.parsers.niccli import parse_niccli_nvm_option
from pytest_gpufabric.parsers.nvidia_smi import parse_nvidia_smi_query
from pytest_gpufabric.parsers.packages import parse_dpkg_list
from pytest_gpufabric.parsers.sysctl import parse_proc_sys_int

Value = bool | int | str

# NVM options (catalog NVM-001..006) as the checks read them: name, and whether --scope 0 is given.
NVM_OPTIONS = {
    "NVM-001": ("support_rdma", True),
    "NVM-002": ("performance_profile", False),
    "NVM-003": ("pcie_relaxed_ordering", False),
    "NVM-004": ("dcbx_mode", True),
    "NVM-005": ("lldp_nearest_bridge", True),
    "NVM-006": ("lldp_nearest_non_tpmr_bridge", True),
}
BNXT_RE_CONF = "cat /etc/bnxt_re/bnxt_re.conf"
ROCM_CORE = "dpkg -l rocm-core"
NVIDIA_DRIVER = "nvidia-smi --query-gpu=index,driver_version --format=csv"


@dataclass(frozen=True)
class Reading:
    """One value read on the node, for the threshold ``check``.``name``; ``command`` is where it was read."""

    check: str
    name: str
    value: Value | float
    command: str
    note: str = ""  # for a value proposed from a measurement: what was measured and why it is proposed


Reader = Callable[[NodeReader, NodeFacts], Iterator[Reading]]


def _modules(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    for check, module in (("DRV-001", "bnxt_en"), ("DRV-002", "bnxt_re")):
        command = sh("modinfo", module)
        info = reader.answer(command, parse_modinfo)
        if info is not None and info.version:
            yield Reading(check, "version", info.version, command)


def _same_on_every_nic(reader: NodeReader, readings: list[Reading]) -> Iterator[Reading]:
    """The value all NICs agree on; a disagreement is noted and nothing is written (no known-good value)."""
    by_value: dict[Value, list[str]] = {}
    for reading in readings:
        by_value.setdefault(reading.value, []).append(reading.command)
    if len(by_value) == 1:
        yield readings[0]
    elif by_value:
        (usual, count), *others = sorted(((v, len(c)) for v, c in by_value.items()), key=lambda item: -item[1])
        shown = "; ".join(f"{value} from `{'`, `'.join(by_value[value])}`" for value, _ in others)
        reader.notes.append(
            f"{readings[0].check}.{readings[0].name}: the NICs disagree ({usual} on {count} NICs; {shown}); not written"
        )


def _firmware(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    readings = []
    for nic in facts.nics:
        command = sh("ethtool", "-i", nic.netdev)
        info = reader.answer(command, parse_ethtool_driver)
        version = None if info is None else firmware_version(info.firmware_version)
        if version:
            readings.append(Reading("DRV-004", "firmware_version", version, command))
    yield from _same_on_every_nic(reader, readings)


def _gpu_software(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    if facts.platform.gpu_vendor == "amd":
        packages = reader.answer(ROCM_CORE, parse_dpkg_list)
        package = None if packages is None else packages.get("rocm-core")
        if package is not None and package.installed:
            yield Reading("DRV-008", "rocm_core", package.version, ROCM_CORE)
    elif facts.platform.gpu_vendor == "nvidia":
        rows = reader.answer(NVIDIA_DRIVER, parse_nvidia_smi_query) or ()
        versions = sorted({row.values.get("driver_version", "") for row in rows} - {""})
        if len(versions) == 1:
            yield Reading("DRV-008", "nvidia_driver", versions[0], NVIDIA_DRIVER)


def _conf(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    conf = reader.answer(BNXT_RE_CONF, parse_bnxt_re_conf)
    for key in CONF_KEYS if conf is not None else ():
        value = conf.get_int(key)  # type: ignore[union-attr]
        if value is not None:
            yield Reading("DRV-009", key.lower(), value, BNXT_RE_CONF)


def _nvm(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    for check, (option, scoped) in NVM_OPTIONS.items():
        readings = []
        for nic in _with_pci(facts.nics):
            command = sh("niccli", "--dev", nic.pci, "nvm", "--getoption", option, *(("--scope", "0") if scoped else ()))  # type: ignore[arg-type]
            answer = reader.answer(command, parse_niccli_nvm_option)
            if answer is not None and answer.name == option:
                value: Value = answer.enabled if answer.enabled is not None else answer.value.split("(")[0].strip()
                readings.append(Reading(check, "enabled" if answer.enabled is not None else "value", value, command))
        yield from _same_on_every_nic(reader, readings)


def _with_pci(nics: tuple[FoundNic, ...]) -> list[FoundNic]:
    return [nic for nic in nics if nic.pci is not None and nic.rdma]


def _congestion_control(reader: NodeReader, facts: NodeFacts) -> Iterator[Reading]:
    readings = []
    for nic in facts.nics:
        if nic.rdma:
            command = sh("cat", cc_mode_path(nic.name))
            mode = reader.answer(command, parse_proc_sys_int)
            if mode is not None:
                readings.append(Reading("QOS-009", "cc_mode", mode, command))
    yield from _same_on_every_nic(reader, readings)


READERS: tuple[Reader, ...] = (_modules, _firmware, _gpu_software, _conf, _nvm, _congestion_control)


def read_baseline(reader: NodeReader, facts: NodeFacts) -> list[Reading]:
    """Every value the readers find on the node (what did not answer is in ``reader.notes``)."""
    return [reading for read in READERS for reading in read(reader, facts)]


def profile_verdict(reading: Reading, profile: Profile) -> str:
    """How the node's value stands to the profile's: ``as``, ``within`` or ``DIFFERS from`` (``proposed`` for a
    site value of a shape the profile documents no value for)."""
    base = profile.expectations[reading.check][reading.name]
    if base.shapes:
        return "proposed"
    return "as" if base.value == reading.value else "within" if base.holds_for(reading.value) else "DIFFERS from"


def render_overrides(node: str, readings: list[Reading], profile: Profile, notes: list[str], header: str) -> str:
    """The ``thresholds:`` section: values the profile judges, each with where it was read and what the
    profile says; values the profile does not judge are listed as comments only."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    lines.append("thresholds:")
    judged = [r for r in readings if r.name in profile.expectations.get(r.check, {})]
    current = None
    for reading in judged:
        if reading.check != current:
            lines.append(f"  {reading.check}:")
            current = reading.check
        base = profile.expectations[reading.check][reading.name]
        verdict = profile_verdict(reading, profile)
        if reading.note:
            lines.append(f"    # {reading.note}")
        lines.append(f"    {reading.name}: {scalar(reading.value)}  # {node}: `{reading.command}`; "
                     f"{verdict} {profile.name}: {base.describe()} ({base.source})")  # fmt: skip
    unjudged = [r for r in readings if r not in judged]
    if unjudged:
        lines.append(f"# read on {node} but not judged by profile {profile.name} (not written):")
        lines += [f"#   {r.check}.{r.name} = {r.value}  (`{r.command}`)" for r in unjudged]
    if notes:
        lines.append(f"# not read on {node}:")
        lines += [f"#   {note}" for note in notes]
    return "\n".join(lines) + "\n"
