"""The device-pair link matrix printed by ``rocm-smi --showtopotype`` and ``nvidia-smi topo -m``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class TopologyMatrix:
    """``links[a][b]`` is the connection type printed for the pair (``XGMI``, ``NV18``, ``PIX``, ``X``...).

    ``extra`` keeps the non-device columns of each row (``CPU Affinity``, ``NUMA Affinity``...).
    """

    devices: tuple[str, ...]
    links: dict[str, dict[str, str]]
    extra: dict[str, dict[str, str]]

    def link(self, first: str, second: str) -> Optional[str]:
        return self.links.get(first, {}).get(second)

    def pairs(self, prefix: str = "GPU") -> tuple[tuple[str, str, str], ...]:
        """Every unordered pair of distinct devices whose names start with ``prefix``, with its link."""
        names = [name for name in self.devices if name.startswith(prefix)]
        return tuple(
            (a, b, self.links[a][b]) for i, a in enumerate(names) for b in names[i + 1 :] if b in self.links.get(a, {})
        )
