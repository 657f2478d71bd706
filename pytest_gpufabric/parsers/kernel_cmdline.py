"""``/proc/cmdline``: the kernel boot parameters (HOST-001 reads the IOMMU settings from them)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Optional, Sequence

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "proc-cmdline"


def last_value(params: Sequence[tuple[str, Optional[str]]], key: str) -> Optional[str]:
    """The value of the last ``key`` parameter (the kernel honours the last one); None if absent."""
    values = [value for name, value in params if name == key]
    return values[-1] if values else None


@dataclass(frozen=True)
class KernelCmdline:
    """Boot parameters in order; a flag without ``=`` has the value None."""

    params: tuple[tuple[str, Optional[str]], ...]
    iommu: Optional[str]
    amd_iommu: Optional[str]
    intel_iommu: Optional[str]

    def get(self, key: str) -> Optional[str]:
        """The value of the last occurrence of ``key`` (the kernel honours the last one); None if absent."""
        return last_value(self.params, key)

    def has(self, key: str) -> bool:
        return any(name == key for name, _ in self.params)


@parser(TOOL, "cat /proc/cmdline: boot parameters, iommu= / amd_iommu= / intel_iommu= values")
def parse_kernel_cmdline(text: str) -> KernelCmdline:
    # /proc/cmdline is one line; documents wrap it, and whitespace only separates parameters anyway.
    joined = " ".join(clean_lines(TOOL, text))
    try:
        tokens = shlex.split(joined)
    except ValueError as exc:
        fail(TOOL, f"unbalanced quotes: {exc}")
    if "--" in tokens:  # what follows "--" is passed to init, not to the kernel
        tokens = tokens[: tokens.index("--")]
    if not tokens:
        fail(TOOL, "no kernel parameters")
    params = []
    for token in tokens:
        key, sep, value = token.partition("=")
        if not key:
            fail(TOOL, f"parameter without a name: {token!r}")
        params.append((key, value if sep else None))
    return KernelCmdline(
        params=tuple(params),
        iommu=last_value(params, "iommu"),
        amd_iommu=last_value(params, "amd_iommu"),
        intel_iommu=last_value(params, "intel_iommu"),
    )
