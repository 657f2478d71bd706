"""Bare metal, a VMware guest or another hypervisor's guest (a cloud or KVM virtual machine): read step by step,
each step recorded, the next one asked only when the one before did not tell.

1. ``systemd-detect-virt``: its word for a virtual machine, or ``none``. A container's word (``docker``...)
   says nothing of the machine below, and the steps go on.
2. DMI (``/sys/class/dmi/id/{sys_vendor,product_name}``): a hypervisor's identification, by systemd's own table.
3. The ``hypervisor`` CPU flag (x86 ``/proc/cpuinfo``): absent on bare metal, present in every guest; it does
   not name the hypervisor, so the kernel's ``Hypervisor detected: <name>`` boot line (``dmesg``, a command
   the acceptance suite runs as well) names it where the log still holds it.

Where nothing tells (tools absent, no DMI, no x86 flags, no boot line) the word is ``unknown`` and the
written file asks a person to review the deployment. The rules and their sources: ``parsers/virt.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.discovery.node_reader import NodeReader
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.virt import (
    CONTAINERS,
    DMI_ORDER,
    dmi_hypervisor,
    kernel_hypervisor,
    parse_cpu_flags,
    parse_detect_virt,
    parse_dmi_value,
)

DETECT_VIRT = "systemd-detect-virt"
DMI_FIELDS = {name: sh("cat", f"/sys/class/dmi/id/{name}") for name in DMI_ORDER}
CPU_FLAGS = sh("grep", "-m1", "-E", "^(flags|Features)[[:space:]]*:", "/proc/cpuinfo")
KERNEL_LOG = "dmesg"
FACET = "virtualization"
BARE_METAL, UNKNOWN, UNNAMED = "none", "unknown", "vm-other"  # systemd-detect-virt's words, and ours
# How a hypervisor's guest is written in a sentence (systemd's words otherwise).
DISPLAY = {"kvm": "KVM", "qemu": "QEMU", "vmware": "VMware", "microsoft": "Hyper-V", "xen": "Xen",
           "amazon": "Amazon EC2", "google": "Google Compute Engine", "oracle": "VirtualBox", "vm-other": "virtual machine"}  # fmt: skip


@dataclass(frozen=True)
class Virtualization:
    """The node's virtualization in systemd-detect-virt's words (``none``, ``vmware``, ``kvm``..., ``vm-other``
    for a hypervisor that no step named, ``unknown`` when nothing told), and what each step said."""

    word: str
    steps: tuple[str, ...]

    @property
    def guest(self) -> bool:
        return self.word not in (BARE_METAL, UNKNOWN)

    def describe(self) -> str:
        """``a KVM guest (DMI product_name 'KVM'; systemd-detect-virt did not answer)``."""
        told = f" ({'; '.join(reversed(self.steps))})" if self.steps else ""
        if self.word == BARE_METAL:
            return f"bare metal{told}"
        if self.word == UNKNOWN:
            return f"not seen{told}"
        return f"a {DISPLAY.get(self.word, self.word)} guest{told}"


def _detect_virt(reader: NodeReader, steps: list[str]) -> str | None:
    word = reader.answer(DETECT_VIRT, parse_detect_virt, ok_codes=(0, 1), facet=FACET)
    if word is None:
        steps.append(f"{DETECT_VIRT} did not answer")
        return None
    if word in CONTAINERS:
        steps.append(f"{DETECT_VIRT}: {word}, a container")
        return None
    steps.append(f"{DETECT_VIRT}: {word}")
    return word


def _dmi(reader: NodeReader, steps: list[str]) -> str | None:
    fields = {}
    for name, command in DMI_FIELDS.items():
        value = reader.answer(command, parse_dmi_value, facet=FACET)
        if value is not None:
            fields[name] = value
    if not fields:
        steps.append("no DMI identification read")
        return None
    found = dmi_hypervisor(fields)
    if found is None:
        steps.append("DMI names no hypervisor (" + ", ".join(f"{k} {v!r}" for k, v in sorted(fields.items())) + ")")
        return None
    steps.append(f"DMI {found[1]}")
    return found[0]


def _kernel_name(reader: NodeReader, steps: list[str]) -> str | None:
    log = reader.answer(KERNEL_LOG, parse_dmesg, facet=FACET)
    found = None if log is None else kernel_hypervisor(log)
    if found is None:
        steps.append("no 'Hypervisor detected' line in the kernel log")
        return None
    steps.append(f"kernel log: 'Hypervisor detected: {found[1]}'")
    return found[0]


def detect_virtualization(reader: NodeReader) -> Virtualization:
    """The first step that tells (see the module docstring); every step asked is kept in ``steps``."""
    steps: list[str] = []
    word = _detect_virt(reader, steps) or _dmi(reader, steps)
    if word:
        return Virtualization(word, tuple(steps))
    flags = reader.answer(CPU_FLAGS, parse_cpu_flags, facet=FACET)
    if flags is not None and flags.x86 and not flags.hypervisor:
        steps.append("no hypervisor flag among the CPU flags")
        return Virtualization(BARE_METAL, tuple(steps))
    if flags is not None and flags.hypervisor:
        steps.append("the CPU flags include hypervisor")
        return Virtualization(_kernel_name(reader, steps) or UNNAMED, tuple(steps))
    steps.append("no x86 CPU flags" if flags is not None else "CPU flags not read")
    return Virtualization(_kernel_name(reader, steps) or UNKNOWN, tuple(steps))
