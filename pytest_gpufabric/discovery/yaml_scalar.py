"""One YAML scalar as ``yaml.safe_dump`` writes it, for files written line by line with comments."""

from __future__ import annotations

from functools import lru_cache

import yaml


@lru_cache(maxsize=8192)  # a site repeats most values (addresses below each switch, speeds, gateways)
def _text(text: str) -> str:
    dumped = yaml.safe_dump(text, default_flow_style=True, width=1 << 20).strip()
    return dumped[: -len("...")].strip() if dumped.endswith("...") else dumped


def scalar(value: object) -> str:
    """A YAML scalar as safe_dump writes it (quoted where YAML would read it as another type)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return _text(str(value))
