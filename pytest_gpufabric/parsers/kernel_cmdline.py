"""``/proc/cmdline``: the kernel boot parameters (HOST-001 reads the IOMMU settings from them).

The file is one line; documents wrap it over several, so every line whose words are all kernel parameters
(``name`` or ``name=value``, quotes as the kernel's own parser takes them) is read and the parameters joined in
order. A line of another form (a warning, a prompt, a line with unbalanced quotes) costs only its own parameters
and is kept unread. Words after ``--`` go to init, not to the kernel.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Optional, Sequence

from pytest_gpufabric.parsers.reading import Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "proc-cmdline"
INIT_ARGUMENTS = "--"
# A parameter's name as the kernel's parse_args() splits it: up to '=', no quote; '-' and '_' are equivalent.
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


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


def _parameters(words: list[str]) -> list[tuple[str, Optional[str]]]:
    params = []
    for word in words:
        key, sep, value = word.partition("=")
        if not NAME.match(key):
            raise Unfit(f"{word!r} is not a kernel parameter (name or name=value)")
        params.append((key, value if sep else None))
    return params


@parser(TOOL, "cat /proc/cmdline: boot parameters, iommu= / amd_iommu= / intel_iommu= values")
def parse_kernel_cmdline(text: str) -> Parsed[KernelCmdline]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    params: list[tuple[str, Optional[str]]] = []
    init = False  # past "--": the rest of the command line is init's
    for line in reading.content():
        if init:
            reading.known(line)
            continue
        with reading.row(line):
            try:
                words = shlex.split(line.text)
            except ValueError as exc:
                raise Unfit(f"unbalanced quotes: {exc}") from None
            if INIT_ARGUMENTS in words:
                words, init = words[: words.index(INIT_ARGUMENTS)], True
            if not words:
                raise Unfit("no kernel parameter before '--' (init's arguments only)")
            params += _parameters(words)
    cmdline = KernelCmdline(
        params=tuple(params),
        iommu=last_value(params, "iommu"),
        amd_iommu=last_value(params, "amd_iommu"),
        intel_iommu=last_value(params, "intel_iommu"),
    )
    return reading.done(cmdline, nothing="no line of kernel parameters")
