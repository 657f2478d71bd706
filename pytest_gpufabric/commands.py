"""Building command lines: every value that reaches a shell is quoted here."""

from __future__ import annotations

import shlex


def sh(*argv: str | int) -> str:
    """A shell command line from its words, each quoted (``sh("ip", "-o", "link", "show", "dev", netdev)``)."""
    return shlex.join(str(word) for word in argv)
