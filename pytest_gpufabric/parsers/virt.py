"""What tells a node's virtualization: ``systemd-detect-virt``, the DMI identification the firmware gives
(``/sys/class/dmi/id/{sys_vendor,product_name}``), the CPU's ``hypervisor`` flag (``/proc/cpuinfo``) and the
kernel's ``Hypervisor detected: <name>`` boot line (``dmesg``).

The rules, each from the code that defines it:

- DMI: systemd ``src/basic/virt.c`` ``detect_vm_dmi_vendor`` (product_name tested before sys_vendor, a value
  starting with a vendor of its table is that hypervisor; ``Amazon EC2`` is a guest unless the product name
  says ``.metal``, as ``detect_vm_dmi`` falls back to). The files hold the SMBIOS System Information strings
  (Linux ``drivers/firmware/dmi-id.c``), the Manufacturer and Product Name that ``dmidecode`` prints.
- CPU flag: CPUID leaf 1, ECX bit 31 (the "hypervisor present" bit systemd's ``detect_vm_cpuid`` tests first),
  which Linux shows as ``hypervisor`` among the x86 ``flags`` of ``/proc/cpuinfo``; it says a hypervisor is
  there, not which.
- Kernel line: Linux ``arch/x86/kernel/cpu/hypervisor.c`` prints ``Hypervisor detected: %s`` with the name of
  the hypervisor it recognized (``KVM``, ``Microsoft Hyper-V``, ``VMware``, ``Xen HVM``...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.dmesg import KernelLog
from pytest_gpufabric.parsers.reading import Parsed, Reading
from pytest_gpufabric.parsers.registry import parser

TOOL = "systemd-detect-virt"
DMI_TOOL = "sysfs-dmi-id"
CPU_FLAGS_TOOL = "proc-cpuinfo-flags"
WORD = re.compile(r"^[a-z][a-z0-9_-]*$")
FLAGS_LINE = re.compile(r"^(?P<key>flags|Features)\s*:\s*(?P<flags>.*)$")
KERNEL_LINE = re.compile(r"\bHypervisor detected: (?P<name>\S.*?)\s*$")

# systemd-detect-virt's words for containers: they say nothing of a virtual machine below (systemd virt.c).
CONTAINERS = frozenset({"openvz", "lxc", "lxc-libvirt", "systemd-nspawn", "docker", "podman", "rkt", "wsl",
                        "proot", "pouch"})  # fmt: skip
# systemd virt.c dmi_vendor_table, in its order: (value prefix, systemd-detect-virt's word).
DMI_VENDORS = (
    ("KVM", "kvm"), ("OpenStack", "kvm"), ("KubeVirt", "kvm"), ("Amazon EC2", "amazon"), ("QEMU", "qemu"),
    ("VMware", "vmware"), ("VMW", "vmware"), ("innotek GmbH", "oracle"), ("VirtualBox", "oracle"),
    ("Oracle Corporation", "oracle"), ("Xen", "xen"), ("Bochs", "bochs"), ("Parallels", "parallels"),
    ("BHYVE", "bhyve"), ("Hyper-V", "microsoft"), ("Apple Virtualization", "apple"),
    ("Google Compute Engine", "google"),
)  # fmt: skip
DMI_ORDER = ("product_name", "sys_vendor")  # systemd reads product_name first ("to detect KVM over QEMU")
# Linux names in "Hypervisor detected: <name>" (arch/x86: kernel/kvm.c, cpu/mshyperv.c, cpu/vmware.c, xen/,
# cpu/acrn.c, jailhouse.c, cpu/bhyve.c), as systemd-detect-virt's words.
KERNEL_NAMES = (("KVM", "kvm"), ("Microsoft Hyper", "microsoft"), ("VMware", "vmware"), ("Xen", "xen"),
                ("ACRN", "acrn"), ("Jailhouse", "jailhouse"), ("Bhyve", "bhyve"))  # fmt: skip


def _one_line(tool: str, text: str, what: str, accept: object) -> Parsed[object]:
    """The one content line of an output, read by ``accept`` (a value, or None when the line is not one)."""
    reading = Reading(tool, text)
    value = None
    for line in reading.content():
        found = accept(line.stripped) if value is None else None  # type: ignore[operator]
        if found is None:
            reading.unread(line, f"expected {what}" if value is None else "a second line")
        else:
            value = found
            reading.used(line)
    return reading.done(value, nothing=f"no line with {what}")


@parser(TOOL, "systemd-detect-virt: the hypervisor identifier (vmware, kvm, ...) or none")
def parse_detect_virt(text: str) -> Parsed[str]:
    return _one_line(TOOL, text, "one word such as 'vmware' or 'none'", lambda line: line if WORD.match(line) else None)  # type: ignore[return-value]


@parser(DMI_TOOL, "cat /sys/class/dmi/id/<field>: one field of the firmware's system identification (sys_vendor...)")
def parse_dmi_value(text: str) -> Parsed[str]:
    """The one line a DMI identification file holds (the SMBIOS string the kernel exposes there)."""
    return _one_line(DMI_TOOL, text, "the one line of a DMI identification file", lambda line: line)  # type: ignore[return-value]


@dataclass(frozen=True)
class CpuFlags:
    """The feature flags of the first CPU; ``x86`` when they are x86 ``flags`` (the only ones with a
    ``hypervisor`` flag: ARM's ``Features`` have none, so its absence there says nothing)."""

    x86: bool
    flags: frozenset[str]

    @property
    def hypervisor(self) -> bool:
        return "hypervisor" in self.flags


def _flags(line: str) -> CpuFlags | None:
    match = FLAGS_LINE.match(line)
    if not match or not match.group("flags").split():
        return None
    return CpuFlags(match.group("key") == "flags", frozenset(match.group("flags").split()))


@parser(CPU_FLAGS_TOOL, "grep -m1 -E '^(flags|Features)' /proc/cpuinfo: the CPU feature flags of the first CPU")
def parse_cpu_flags(text: str) -> Parsed[CpuFlags]:
    return _one_line(CPU_FLAGS_TOOL, text, "one 'flags : <flag> ...' line", _flags)  # type: ignore[return-value]


def dmi_hypervisor(fields: dict[str, str]) -> Optional[tuple[str, str]]:
    """(systemd word, the field that told) for a DMI identification of a virtual machine, else None."""
    for name in DMI_ORDER:
        value = fields.get(name, "")
        word = next((word for prefix, word in DMI_VENDORS if value.startswith(prefix)), None)
        if word == "amazon" and ".metal" in fields.get("product_name", ""):
            return None  # an EC2 bare-metal instance
        if word:
            return word, f"{name} {value!r}"
    return None


def kernel_hypervisor(log: KernelLog) -> Optional[tuple[str, str]]:
    """(systemd word, the kernel's name) from the ``Hypervisor detected: <name>`` boot line, else None."""
    for line in log.lines:
        match = KERNEL_LINE.search(line.text)
        if match:
            name = match.group("name")
            word = next((word for prefix, word in KERNEL_NAMES if name.startswith(prefix)), name.lower())
            return word, name
    return None
