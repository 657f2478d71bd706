"""Output normalization shared by every parser: CRLF, ANSI escapes, trailing prompts, binary data."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.rdma import parse_rdma_link
from pytest_gpufabric.parsers.textutil import clean_lines

LINK = "link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev enp29s0np0"


@pytest.mark.parametrize(
    "text",
    [f"{LINK}\r\n", f"\x1b[32m{LINK}\x1b[0m\n", f"{LINK}\nroot@node01:~# \n", f"{LINK}\n(base) user@node01:~$\n", f"\n\n{LINK}\n\n"],
    ids=["crlf", "ansi-color", "root-prompt", "conda-prompt", "blank-edges"],
)
def test_variants_parse_like_the_plain_output(text: str) -> None:
    assert parse_rdma_link(text).facts == parse_rdma_link(LINK + "\n").facts


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("root@node01:~# \n", "no output besides a shell prompt"), ("abc\x00def", "binary data"), (b"x", "expected text")],
    ids=["prompt-only", "nul-byte", "bytes"],
)
def test_unusable_text(parse_error, text, fragment: str) -> None:
    parse_error(lambda value: clean_lines("any-tool", value), text, "any-tool", fragment)
