"""One YAML scalar as ``yaml.safe_dump`` writes it, for files written line by line with comments."""

from __future__ import annotations

import yaml


def scalar(value: object) -> str:
    """A YAML scalar as safe_dump writes it (quoted where YAML would read it as another type)."""
    plain = value if isinstance(value, (bool, int, float)) else str(value)
    text = yaml.safe_dump(plain, default_flow_style=True, width=1 << 20).strip()
    return text[: -len("...")].strip() if text.endswith("...") else text
