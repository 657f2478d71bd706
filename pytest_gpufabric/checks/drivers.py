"""Software and drivers (DRV-*): module versions, cluster consistency, peer memory, dkms builds."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.kallsyms import KernelSymbols
from pytest_gpufabric.parsers.kmod import DkmsStatus, LoadedModules

PEER_MEMORY_SYMBOL = "ib_register_peer_memory_client"
PEER_MEMORY_PROVIDERS = ("ib_uverbs", "ib_peer_mem")


def odd_ones_out(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """The nodes whose value differs from the most common one (ties: the smallest value wins, so the
    answer does not depend on the order the nodes are listed in)."""
    if not values:
        return {}
    counts = Counter(values.values())
    majority = min(counts, key=lambda value: (-counts[value], str(value)))
    return {node: value for node, value in sorted(values.items()) if value != majority}


def consistency_detail(what: str, values: Mapping[str, str | None]) -> str:
    """One line for a failure message: every node agrees, or which nodes differ and how."""
    odd = odd_ones_out(values)
    if not odd:
        return f"{what} identical on all {len(values)} nodes of the profile"
    shown = ", ".join(f"{node}={value or 'missing'}" for node, value in odd.items())
    return f"{what} differs from the other nodes on {shown}"


def peer_memory_provider(symbols: KernelSymbols) -> str:
    """The module exporting ib_register_peer_memory_client (S0 2.2: ib_uverbs when built in, else
    ib_peer_mem), ``kernel`` for the kernel image, ``none`` when the symbol is absent."""
    providers = symbols.providers(PEER_MEMORY_SYMBOL)
    if not providers and symbols.may_hold(PEER_MEMORY_SYMBOL):
        raise MeasurementMissing(f"{PEER_MEMORY_SYMBOL}: /proc/kallsyms holds a line naming it that was not understood")
    for module in PEER_MEMORY_PROVIDERS:
        if module in providers:
            return module
    if None in providers:
        return "kernel"
    return sorted(p for p in providers if p)[0] if providers else "none"


def missing_modules(modules: LoadedModules, names: Iterable[str]) -> list[str]:
    """The names among ``names`` that lsmod does not list; a name that a line not understood may hold is not
    known to be missing (MeasurementMissing)."""
    missing = [name for name in names if modules.get(name) is None]
    unsure = [name for name in missing if modules.may_hold(name)]
    if unsure:
        raise MeasurementMissing(f"{', '.join(unsure)}: not among the loaded modules read, but a line naming it was not understood")
    return missing


def dkms_installed(status: DkmsStatus, modules: Iterable[str], kernel: str) -> tuple[list[str], list[str]]:
    """Of ``modules``, those dkms lists as ``installed`` for ``kernel`` (in the given order), and a line
    for each of the others saying what dkms reports instead; a module that a line not understood may name is
    not known (MeasurementMissing)."""
    modules = list(modules)
    found = {entry.module: entry for entry in status.entries if entry.kernel == kernel}
    unsure = [module for module in modules if module not in found and status.may_hold(module)]
    if unsure:
        raise MeasurementMissing(f"{', '.join(unsure)}: dkms status has a line naming it that was not understood")
    installed, problems = [], []
    for module in modules:
        entry = found.get(module)
        if entry is not None and entry.status == "installed":
            installed.append(module)
        elif entry is None:
            problems.append(f"{module}: no build for {kernel}")
        else:
            problems.append(f"{module}/{entry.version}: {entry.status} for {kernel}")
    return installed, problems


def loaded_for_running_kernel(modules: LoadedModules, names: Iterable[str], kernel: str) -> list[str]:
    """Of ``names`` (dkms package names), those loaded into the running kernel, which loads only modules built
    for it: what ``dkms status`` would show as installed there, on a node without dkms. A module that is not
    loaded may still be built for the kernel, so it is not known, and that is an error naming dkms."""
    names = list(names)
    unknown = [name for name in names if modules.get(name.replace("-", "_")) is None]
    if unknown:
        raise MeasurementMissing(f"dkms is not installed (exit 127): {', '.join(unknown)} not loaded into kernel {kernel}, "
                                 "so whether it is built for it is not known")
    return names


def firmware_version(reported: str | None) -> str | None:
    """The running firmware of ``ethtool -i``'s firmware-version, e.g. ``234.0.145.0`` of
    ``234.0.145.0/pkg 234.0.145.0``; None when not reported."""
    if not reported or not reported.strip():
        return None
    return reported.strip().split("/")[0].split()[0]


def devices_not_listed(text: str, names: Iterable[str]) -> list[str]:
    """The device names that do not appear as a whole word in a diagnostic command's output."""
    return [name for name in names if not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)]
