"""iproute2 ``rdma link show``: state, physical state and net device of every RDMA port."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import clean_lines, fail

TOOL = "rdma-link"
LINK = re.compile(r"^link\s+([^/\s]+)/(\d+)\s+(.*)$")


@dataclass(frozen=True)
class RdmaLink:
    device: str
    port: int
    state: Optional[str]
    physical_state: Optional[str]
    netdev: Optional[str]


@dataclass(frozen=True)
class RdmaLinks:
    links: tuple[RdmaLink, ...]

    def get(self, device: str, port: int = 1) -> Optional[RdmaLink]:
        return next((link for link in self.links if link.device == device and link.port == port), None)


def _word_after(text: str, keyword: str) -> Optional[str]:
    match = re.search(rf"(?:^|\s){keyword}\s+(\S+)", text)
    return match.group(1) if match else None


@parser(TOOL, "rdma link show: device/port, state, physical_state, netdev")
def parse_rdma_link(text: str) -> RdmaLinks:
    links = []
    for line in clean_lines(TOOL, text):
        if not line.strip():
            continue
        match = LINK.match(line.strip())
        if not match:
            fail(TOOL, f"expected 'link <device>/<port> state ...', found {line.strip()!r}")
        device, port, rest = match.groups()
        links.append(
            RdmaLink(
                device=device,
                port=int(port),
                state=_word_after(rest, "state"),
                physical_state=_word_after(rest, "physical_state"),
                netdev=_word_after(rest, "netdev"),
            )
        )
    return RdmaLinks(tuple(links))
