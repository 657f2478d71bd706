"""The benchmark tools' output: their figures as JSON on stdout, and in a file when asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def emit(report: dict[str, Any], path: Path | None) -> None:
    """Print ``report`` as indented JSON; write the same text to ``path`` when given."""
    text = json.dumps(report, indent=1)
    print(text)
    if path:
        path.write_text(text + "\n", encoding="utf-8")
