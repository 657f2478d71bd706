"""Device-pair matrices as ``nvidia-smi topo -m``, ``rocm-smi --showtopo`` and ``amd-smi topology`` print them.

A matrix is a header of device names and one row per device, read by the parsing rule: the columns come from
the header's positions (tabs at 8-column stops), a row whose cells do not fit the header (a fused or shifted
cell, a cell missing) is refused and kept unread, never shifted. A matrix is symmetric, so a pair is known when
either of its two rows was read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Reading, Unfit
from pytest_gpufabric.parsers.tables import Header

LABEL = "device"  # the column of row labels, before the first header word


@dataclass(frozen=True)
class TopologyMatrix:
    """``links[a][b]`` is the connection type printed for the pair (``XGMI``, ``NV18``, ``PIX``, ``X``...).

    ``extra`` keeps the non-device columns of each row (``CPU Affinity``, ``NUMA Affinity``...). ``nics`` is
    the NIC legend of ``nvidia-smi topo -m`` (``NIC0`` -> ``mlx5_0``); a header may name NICs directly
    (``mlx5_0``) in older drivers."""

    devices: tuple[str, ...]
    links: dict[str, dict[str, str]]
    extra: dict[str, dict[str, str]]
    nics: dict[str, str] = field(default_factory=dict)

    def link(self, first: str, second: str) -> Optional[str]:
        """The pair's connection type, from either row (the matrix is symmetric); None when neither was read."""
        found = self.links.get(first, {}).get(second)
        return found if found is not None else self.links.get(second, {}).get(first)

    def names(self, prefix: str = "GPU") -> tuple[str, ...]:
        return tuple(name for name in self.devices if name.startswith(prefix))

    def pairs(self, prefix: str = "GPU") -> tuple[tuple[str, str, str], ...]:
        """Every unordered pair of distinct devices whose names start with ``prefix``, with its link, where
        either row was read."""
        names = self.names(prefix)
        found = ((a, b, self.link(a, b)) for i, a in enumerate(names) for b in names[i + 1:])
        return tuple((a, b, kind) for a, b, kind in found if kind is not None)

    def unread_pairs(self, prefix: str = "GPU") -> tuple[tuple[str, str], ...]:
        """The pairs whose link no row gave (both rows refused or missing): a measurement not made."""
        names = self.names(prefix)
        return tuple((a, b) for i, a in enumerate(names) for b in names[i + 1:] if self.link(a, b) is None)

    def nic_name(self, label: str) -> str:
        """The RDMA device a matrix label stands for (``NIC0`` -> ``mlx5_0`` by the legend; itself otherwise)."""
        return self.nics.get(label, label)


def read_rows(
    reading: Reading, header: Header, lines: Iterable[Line], devices: tuple[str, ...],
    cell_ok: Callable[[str, str], None], rows: dict[str, dict[str, str]], extra: dict[str, dict[str, str]] | None = None,
    other_cells: Callable[[dict[str, str]], dict[str, str]] | None = None,
    cells_of: Callable[[Line], dict[str, str]] | None = None,
) -> None:
    """Read the rows under ``header`` into ``rows`` (label -> device -> value) and the other columns into
    ``extra`` (``other_cells`` maps a row's non-device cells to named values, raising ``Unfit``; by default
    they are taken as they are). ``cells_of`` gives a row's cells by column name (``LABEL``, each device, the
    other columns), raising ``Unfit``; by default the header's positions. A row is refused (unread) when a cell
    does not fit the header, a device cell is empty off the diagonal, the label is not a device of the header, a
    label repeats, or ``cell_ok(column, value)`` raises ``Unfit``."""
    for line in lines:
        label = line.stripped.split()[0]
        with reading.row(line, scope=label):
            cells = (cells_of or header.cells)(line)
            label = cells.get(LABEL, "")
            if label not in devices:
                raise Unfit(f"row label {label!r} is not a device of the header")
            if label in rows:
                raise Unfit(f"a second row for {label}")
            values = {}
            for device in devices:
                value = cells[device]
                if not value and device == label:
                    continue  # an empty diagonal (some releases print nothing for a device with itself)
                if not value:
                    raise Unfit(f"no value under {device}")
                cell_ok(device, value)
                values[device] = value
            rest = {name: value for name, value in cells.items() if name != LABEL and name not in devices}
            kept = other_cells(rest) if other_cells else {name: value for name, value in rest.items() if value}
            for name, value in kept.items():
                cell_ok(name, value)
            rows[label] = values
            if extra is not None:
                extra[label] = kept
