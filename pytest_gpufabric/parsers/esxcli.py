"""``esxcli system settings kernel list -o <name>``: ESX kernel settings (VM-001: ACS and ATS).

esxcli prints a table under ``Name Type Configured Runtime Default Description`` and a dash line, columns as
wide as their widest cell: rows are split by the dashes' positions (a cell out of its column refuses its row).
Documents flatten the table to single spaces and drop the dashes: then a row is read word by word, only for a
``Bool`` setting whose three values are ``TRUE``/``FALSE`` (a value of another type may be empty or hold a space,
so its words cannot be placed). Any other line costs only its own setting and is kept unread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import Header, dash_tables, first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "esxcli-kernel-settings"
HEADER = ("Name", "Type", "Configured", "Runtime", "Default", "Description")
BOOLEANS = ("TRUE", "FALSE")


@dataclass(frozen=True)
class EsxKernelSetting:
    name: str
    type: str  # "Bool", "uint32", ...
    configured: str
    runtime: str
    default: str
    description: str

    @property
    def runtime_bool(self) -> Optional[bool]:
        """The runtime value of a Bool setting; None for other types."""
        if self.type.lower() != "bool":
            return None
        return {"true": True, "false": False}.get(self.runtime.lower())


def _setting(cells: dict[str, str]) -> EsxKernelSetting:
    if not cells["Name"] or not cells["Type"]:
        raise Unfit("a row without its Name or Type")
    if cells["Type"].lower() == "bool" and any(cells[c].upper() not in BOOLEANS for c in ("Configured", "Runtime", "Default")):
        raise Unfit("a Bool setting whose values are not TRUE or FALSE")
    return EsxKernelSetting(*(cells[name] for name in HEADER))


def _flattened(line: Line) -> EsxKernelSetting:
    words = line.stripped.split(None, 5)
    if len(words) < 5 or words[1].lower() != "bool" or any(w.upper() not in BOOLEANS for w in words[2:5]):
        raise Unfit("a flattened row is read only for a Bool setting: '<name> Bool TRUE|FALSE TRUE|FALSE TRUE|FALSE ...'")
    return EsxKernelSetting(*words[:5], words[5] if len(words) > 5 else "")


@parser(TOOL, "esxcli system settings kernel list [-o name]: configured, runtime and default values")
def parse_esxcli_kernel_settings(text: str) -> Parsed[dict[str, EsxKernelSetting]]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    settings: dict[str, EsxKernelSetting] = {}
    rows: list[tuple[Line, Header | None]] = []
    for table in dash_tables(reading):
        if table.header.names != HEADER:
            for line in (*table.heading, *table.rows):
                reading.unread(line, f"a table of other columns than {' '.join(HEADER)}")
            continue
        rows += [(line, table.header) for line in table.rows]
    flattened = False
    for line in reading.content():
        if line.stripped.split() == list(HEADER):
            flattened = True
            reading.known(line)
        elif flattened:
            rows.append((line, None))
        else:
            reading.unread(line, f"expected the header '{' '.join(HEADER)}' before the settings")
    for line, header in sorted(rows, key=lambda row: row[0].number):
        with reading.row(line, scope=first_word(line)):
            setting = _setting(header.cells(line)) if header is not None else _flattened(line)
            if setting.name in settings:
                raise Unfit(f"{setting.name} listed twice")
            settings[setting.name] = setting
    return reading.done(settings, nothing="no setting row under 'Name Type Configured Runtime Default Description'")
