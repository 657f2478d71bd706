"""SONiC ``show lldp table`` and ``show mac``: who is at the other end of each port (CAB-001), as ``tabulate``
prints them: a header over dashes, then rows split by the dashes' positions (a row that does not fit is refused,
never shifted), then a footer (``Total entries displayed``, ``Total number of entries``).

A multi-ASIC switch prints one table per ASIC after its ``Namespace: asicN`` line.
``show lldp table`` names a Linux host running lldpd by its host name, its port by the NIC's MAC address and the
port description lldpd sends (``Interface   8 as enp5s0f0``); older releases print no RemotePortDescr column."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, first_word, header_from_dashes, is_dash_line
from pytest_gpufabric.switches.neighbors import LldpNeighborEntry, MacEntry, normalize_mac

LLDP_TOOL = "sonic-lldp-table"
MAC_TOOL = "sonic-mac"
_KNOWN = re.compile(r"^(Capability codes: .*|Total entries displayed: *\d+|Total number of entries \d+)$")
_NAMESPACE = re.compile(r"^(Namespace:? \S+|For namespace ?\S*:)$")  # a multi-ASIC switch: one table per ASIC


def _table(reading: Reading, first_column: str) -> Iterator[tuple[Line, Header]]:
    """The rows under each header whose first column is ``first_column``, with that header; a dash line, a blank
    line or a known footer ends the rows."""
    lines = list(reading.lines)
    header: Header | None = None
    for index, line in enumerate(lines):
        if reading.outcome(line) is not None:
            continue
        if not line.stripped or _KNOWN.match(line.words) or _NAMESPACE.match(line.words):
            header = header if line.stripped and _KNOWN.match(line.words) else None
            if line.stripped:
                reading.known(line)
            continue
        if is_dash_line(line):
            reading.known(line)  # a footer rule
            header = None
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        if line.words.split()[0] == first_column and following is not None and is_dash_line(following):
            try:
                header = header_from_dashes(line, following)
            except Unfit as exc:
                reading.unread(line, str(exc))
                continue
            reading.known(line)
            reading.known(following)
            continue
        if header is not None:
            yield line, header


def _word(cells: dict[str, str], column: str) -> str:
    value = cells[column]
    if not value or " " in value:
        raise Unfit(f"{column}: expected one word, found {value!r}")
    return value


@parser(LLDP_TOOL, "show lldp table (SONiC): per port, the neighbor's name, port ID and port description")
def parse_lldp_table(text: str) -> Parsed[tuple[LldpNeighborEntry, ...]]:
    reading = Reading(LLDP_TOOL, text)
    entries: list[LldpNeighborEntry] = []
    for line, header in _table(reading, "LocalPort"):
        with reading.row(line, scope=first_word(line)):
            if not {"LocalPort", "RemoteDevice", "RemotePortID"} <= set(header.names):
                raise Unfit(f"a table without LocalPort, RemoteDevice and RemotePortID: {', '.join(header.names)}")
            cells = header.cells(line)
            if not cells["RemotePortID"]:
                raise Unfit("RemotePortID: empty cell")
            description = cells.get("RemotePortDescr") or None
            entries.append(LldpNeighborEntry(_word(cells, "LocalPort"), _word(cells, "RemoteDevice"),
                                             cells["RemotePortID"], description))
    return reading.done(tuple(entries), nothing="no LLDP table")


@parser(MAC_TOOL, "show mac (SONiC): the MAC addresses learned on each port")
def parse_mac(text: str) -> Parsed[tuple[MacEntry, ...]]:
    reading = Reading(MAC_TOOL, text)
    entries: list[MacEntry] = []
    for line, header in _table(reading, "No."):
        with reading.row(line, scope=first_word(line)):
            if not {"No.", "Vlan", "MacAddress", "Port"} <= set(header.names):
                raise Unfit(f"a table without No., Vlan, MacAddress and Port: {', '.join(header.names)}")
            cells = header.cells(line)
            integer(cells["No."], "No.")
            mac = normalize_mac(cells["MacAddress"])
            if mac is None:
                raise Unfit(f"MacAddress: {cells['MacAddress']!r} is not a MAC address")
            kind = cells.get("Type", "").strip().lower() or None
            entries.append(MacEntry(mac, _word(cells, "Port"), cells["Vlan"].strip() or None, kind))
    return reading.done(tuple(entries), nothing="no MAC table")
