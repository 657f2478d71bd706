"""Facts a check needs from a node, read with the preferred tool and, where a node lacks it, from the kernel.

``lsmod``, ``modinfo`` and ``lspci`` are thin readers of kernel interfaces: ``/proc/modules``,
``/sys/module/<m>/version`` and ``/sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width}``. A node
without the tool (the shell's exit status 127, "command not found") is read there instead; when that fails
too, the error names the missing tool and what the fallback answered, so a missing fact is never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_gpufabric.commands import sh
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.kmod import LoadedModules, parse_lsmod, parse_modinfo, parse_proc_modules, parse_sysfs_module_version
from pytest_gpufabric.parsers.lspci import parse_lspci
from pytest_gpufabric.parsers.pci_link import link_files_command, parse_sysfs_pci_link
from pytest_gpufabric.transport.base import CommandResult

COMMAND_NOT_FOUND = 127  # POSIX shells: the command was not found


def tool_missing(result: CommandResult) -> bool:
    """True when the shell could not find the command."""
    return result.exit_code == COMMAND_NOT_FOUND


def require_tool(result: CommandResult) -> CommandResult:
    """``result``, unless the shell could not find its program: then the fact is not measured (never judged as
    the program's failure)."""
    if tool_missing(result):
        program = result.command.split(maxsplit=1)[0]
        raise MeasurementMissing(f"{result.node}: `{result.command}`: {program} is not installed (exit {COMMAND_NOT_FOUND})")
    return result


def unreadable(tool: str, fallback: CommandResult) -> MeasurementMissing:
    """The error of a fact that neither ``tool`` (not installed) nor its fallback command could give."""
    answer = (fallback.stderr or fallback.stdout).strip()[:160]
    return MeasurementMissing(f"{fallback.node}: {tool} is not installed (exit {COMMAND_NOT_FOUND}) and "
                              f"`{fallback.command}` did not answer either (exit {fallback.exit_code}: {answer!r})")


def loaded_modules(gpufabric: CheckContext, node: str) -> LoadedModules:
    """The loaded kernel modules: ``lsmod``, else ``/proc/modules``."""
    result = gpufabric.run(node, "lsmod", cached=True)
    if not tool_missing(result):
        return gpufabric.parse(parse_lsmod, result)
    fallback = gpufabric.run(node, "cat /proc/modules", cached=True)
    if fallback.exit_code != 0:
        raise unreadable("lsmod", fallback)
    return gpufabric.parse(parse_proc_modules, fallback)


def module_version(gpufabric: CheckContext, node: str, module: str) -> str | None:
    """The version of ``module``: ``modinfo``, else ``/sys/module/<module>/version``; None when it has none."""
    result = gpufabric.run(node, sh("modinfo", module), cached=True)
    if not tool_missing(result):
        return gpufabric.parse(parse_modinfo, result).version if result.exit_code == 0 else None
    fallback = gpufabric.run(node, sh("cat", f"/sys/module/{module}/version"), cached=True)
    if fallback.exit_code != 0:
        if "No such file" in fallback.stderr:
            return None  # not loaded, or a module without a version: the same answer modinfo gives
        raise unreadable("modinfo", fallback)
    return gpufabric.parse(parse_sysfs_module_version, fallback)


@dataclass(frozen=True)
class PcieLinkState:
    """The link of one device, its capability, whether it runs below it, and where the facts came from."""

    speed_gts: float | None
    width: int | None
    cap_speed_gts: float | None
    cap_width: int | None
    below_capability: bool
    source: str

    @property
    def detail(self) -> str:
        return (f"{self.source}: capable {self.cap_speed_gts}GT/s x{self.cap_width}, "
                f"running {self.speed_gts}GT/s x{self.width}")


def pcie_link(gpufabric: CheckContext, node: str, bdf: str) -> PcieLinkState:
    """LnkSta/LnkCap of ``bdf``: ``lspci -vvv``, else the kernel's link files under /sys/bus/pci/devices."""
    result = gpufabric.run(node, "lspci -vvv", cached=True)
    if not tool_missing(result):
        function = gpufabric.require(gpufabric.parse(parse_lspci, result).get(bdf), f"{bdf} in lspci -vvv")
        cap = gpufabric.require(function.link_cap, f"LnkCap of {bdf}")
        sta = gpufabric.require(function.link_sta, f"LnkSta of {bdf}")
        below = sta.downgraded or (sta.speed_gts, sta.width) != (cap.speed_gts, cap.width)
        return PcieLinkState(sta.speed_gts, sta.width, cap.speed_gts, cap.width, below, "lspci -vvv LnkCap/LnkSta")
    fallback = gpufabric.run(node, link_files_command(bdf), cached=True)
    if fallback.exit_code != 0:
        raise unreadable("lspci", fallback)
    link = gpufabric.parse(parse_sysfs_pci_link, fallback)
    below = gpufabric.require(link.below_capability, f"{', '.join(link.missing)} of {bdf}")
    return PcieLinkState(link.current_speed_gts, link.current_width, link.max_speed_gts, link.max_width,
                         below, f"/sys/bus/pci/devices/{link.bdf} (lspci not installed)")
