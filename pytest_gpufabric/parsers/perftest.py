"""perftest (``ib_write_bw``, ``ib_send_bw``, ``ib_read_bw``, ``ib_*_lat``): header facts, result table, errors.

One parser reads every perftest client or server output. The result table is recognised by its column
header (``#bytes #iterations BW peak[Gb/sec] ...`` or ``... t_min[usec] ...``), so bandwidth and latency
tests, ``--report_gbits`` (Gb/sec) and the default MB/sec (``MiB/sec`` since perftest 24.07, commit 1d202bb:
the same 2^20 bytes per second, only the label changed), and bidirectional runs (``-b``) all go through the
same code. A capture holding both sides of one run (``run_perftest_loopback``, or server and client written to
one file) carries two tables: each size appears at most once per side, the sizes of one side are among those of
the other (the server of a one-way RDMA write run over all sizes, ``-a``, prints only the last size), and where
both sides print a size the lower of the two averages is kept, so that such a capture never reports more than
either side measured. A run that failed ("Failed status 12", "Couldn't connect", ...) is not a parse error: its
errors are reported as facts, so that a check can show the documented hint. An output with neither a
complete table nor a recognised error is a ParseError (truncated or not perftest).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, decimal, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.tables import TAB_STOP, first_word
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "perftest"

SEPARATOR = re.compile(r"^\s*-{20,}\s*$")
TEST_TITLE = re.compile(r"^\s*((?:RDMA_Write|RDMA_Read|Send|Atomic\S*)\b.*?\b(?:BW|Latency) Test)\s*$")
# "Dual-port       : OFF          Device         : bnxt_re4" holds two settings on one line.
SETTING = re.compile(r"([A-Za-z][A-Za-z0-9_*./\- ]*?)\s*:\s*(\S+)")
# A line of one setting only: where it matches, SETTING finds that one pair and nothing else but blanks (the key
# ends at the first colon either way, the value is the one word after it).
ONE_SETTING = re.compile(rf"\s*{SETTING.pattern}\s*")
GPU_DEVICE = re.compile(r"^\s*Using (ROCm|CUDA|cuda|rocm|Neuron|HL) Device with ID:?\s*(\d+)(?:,\s*Name:\s*([^,]+))?"
                        r"(?:,\s*PCI Bus ID:\s*(\S+?))?(?:,|$)", re.IGNORECASE)
GPU_BUFFER = re.compile(r"^\s*allocated (\d+) bytes of GPU buffer", re.IGNORECASE)
BW_HEADER = re.compile(r"\s*#bytes\s+#iterations\s+BW peak\[(Gb/sec|MB/sec|MiB/sec)\]\s+BW average\[(?:Gb/sec|MB/sec|MiB/sec)\]"
                       r"\s+MsgRate\[Mpps\]")
# perftest divides bytes by 0x100000 for its MB/sec and MiB/sec tables and bits by 10^9 for Gb/sec
# (src/perftest_parameters.c, format_factor): factors to bytes per second and to bits per second.
BYTES_PER_SECOND = {"MB/sec": 1048576, "MiB/sec": 1048576}
BITS_PER_SECOND = {"Gb/sec": 10**9}
LAT_HEADER = re.compile(r"#bytes\s+#iterations\s+t_min\[usec\]")
LAT_COLUMN = re.compile(r"(t_min|t_max|t_typical|t_avg|t_stdev|99% percentile|99\.9% percentile)\[usec\]")
COMPLETION_ERROR = re.compile(r"Failed status (\d+):\s*wr_id (\d+)\s+syndrom[e]? (0x[0-9a-fA-F]+)", re.IGNORECASE)
PORT_IN_USE = re.compile(r"port\b.*\bin use|Address already in use|Couldn't (?:bind|listen)", re.IGNORECASE)
CONNECT_ERROR = re.compile(r"Couldn't connect|Unable to init the socket connection|Failed to establish connection"
                           r"|Couldn't (?:get|read|exchange)\b", re.IGNORECASE)
DEVICE_ERROR = re.compile(r"Did not detect devices|Unable to find the Infiniband/RoCE device"
                          r"|IB device \S+ not found|No IB devices found", re.IGNORECASE)
# perftest's own messages besides the header, table and errors: the server's banner, the connection's ends, the
# run's times, the CPU frequency notes, warnings about the run, a GPU buffer released.
INFORMATION = re.compile(r"^(\*+|\* Waiting for client to connect\.\.\. \*|(local|remote) address: .*|GID: [\d:a-fA-F.]+|"
                         r"Connected: .*|Completed: .*|Total run time: .*|Using sampled CPU speed .*|"
                         r"Conflicting CPU frequency values detected.*|WARNING: .*|Warning: .*|"
                         r"(initializing|deallocating|destroying) .*|Requested mtu is higher than active mtu.*|"
                         r"Changing to active mtu.*|Max msg size in .*|Perftest doesn't supports .*|"
                         r"If device exists, check if driver is up|Device not recognized to implement inline feature.*|"
                         r"scnt=\d+, ccnt=\d+)$", re.IGNORECASE)
OTHER_FAILURE = re.compile(r"Completion with error|Failed to complete|Failed to|Couldn't|Unable to|\bERROR\b")
# Words without which none of the error patterns above can match an ASCII line (each pattern's literal parts,
# lower case; "in use" stands for both forms of a port in use): most lines are no error, and a look for these
# words tells so at a fraction of five searches.
ERROR_WORDS = ("fail", "in use", "couldn't", "did not detect", "unable", "ib device", "error")
# The same for the other patterns: a literal part, or the first characters (of the case-insensitive GPU patterns,
# looked at on ASCII lines only, where case folding is plain), without which they cannot match.
SEPARATOR_PART = "-" * 20
TITLE_PART = "Test"
GPU_FIRST_CHARACTERS = ("u", "U", "a", "A")
TABLE_HEADER_PART = "#bytes"
# A table row of plain numbers, one a line: two whole numbers, then a cell of digits and dots per column (a row's
# only blanks are spaces: its tabs are expanded); such a cell is a plain decimal exactly when float() reads it.
PLAIN_ROW_START, PLAIN_CELL = r"^ *([0-9]+) +([0-9]+)", r" +([0-9.]+)"


@dataclass(frozen=True)
class PerftestError:
    """One error line of the output. ``kind``: completion, connection, port_in_use, no_device or failure."""

    kind: str
    line: str
    status: int | None = None
    syndrome: str | None = None


@dataclass(frozen=True)
class GpuMemory:
    """The GPU buffer perftest used (``--use_rocm`` / ``--use_cuda``), from its "Using ... Device" line."""

    runtime: str
    device_id: int
    name: str | None
    pci_bus_id: str | None
    allocated_bytes: int | None


@dataclass(frozen=True)
class BandwidthRow:
    """One message size of a bandwidth test; bandwidths in the table's unit, message rate in Mpps."""

    bytes: int
    iterations: int
    bw_peak: float
    bw_average: float
    msg_rate_mpps: float


@dataclass(frozen=True)
class LatencyRow:
    """One message size of a latency test, in microseconds; columns the run did not print are None."""

    bytes: int
    iterations: int
    t_min: float | None
    t_max: float | None
    t_typical: float | None
    t_avg: float | None
    t_stdev: float | None
    p99: float | None
    p99_9: float | None


@dataclass(frozen=True)
class PerftestResult:
    """Everything one perftest output says.

    ``kind`` is "bw", "lat" or None (no table: the run failed before measuring). ``bw_unit`` is
    "Gb/sec", "MB/sec" or "MiB/sec" for bandwidth tables. ``settings`` keeps every header ``key : value`` pair.
    ``sides`` is 2 for a capture that holds the tables of both sides of one run.
    """

    test: str | None
    bidirectional: bool
    kind: str | None
    bw_unit: str | None
    device: str | None
    num_qps: int | None
    transport: str | None
    connection: str | None
    mtu_bytes: int | None
    link_type: str | None
    gid_index: int | None
    gpu_memory: GpuMemory | None
    settings: tuple[tuple[str, str], ...]
    bandwidth_rows: tuple[BandwidthRow, ...]
    latency_rows: tuple[LatencyRow, ...]
    errors: tuple[PerftestError, ...]
    sides: int = 1
    complete: bool = True  # every table closed by its dash line and every row read

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def setting(self, key: str) -> str | None:
        """The header value of ``key`` (e.g. "Use ROCm memory"), or None when the header lacks it."""
        for name, value in self.settings:
            if name == key:
                return value
        return None


def _may_be_error(line: str, ascii_line: bool) -> bool:
    """False when none of the error patterns can match ``line`` (an ASCII line without any of ERROR_WORDS; a line
    of other characters is searched in full). A look for each word: faster than one search for them all."""
    if not ascii_line:
        return True
    lower = line.lower()
    for word in ERROR_WORDS:
        if word in lower:
            return True
    return False


def _classify_error(line: str) -> PerftestError | None:
    text = line.strip()
    match = COMPLETION_ERROR.search(text)
    if match:
        return PerftestError("completion", text, int(match.group(1)), match.group(3).lower())
    if PORT_IN_USE.search(text):
        return PerftestError("port_in_use", text)
    if DEVICE_ERROR.search(text):
        return PerftestError("no_device", text)
    if CONNECT_ERROR.search(text):
        return PerftestError("connection", text)
    if OTHER_FAILURE.search(text):
        return PerftestError("failure", text)
    return None


INT_SETTING = re.compile(r"(\d+)(?:\[\w+\])?$")


def _int_setting(settings: dict[str, str], key: str) -> int | None:
    """A numeric header value (``4096[B]`` -> 4096); None when absent or of another form."""
    value = settings.get(key)
    match = INT_SETTING.match(value) if value is not None else None
    return int(match.group(1)) if match else None


def _numbers(line: str, expected: int, what: str) -> list[str]:
    fields = line.split()
    if len(fields) != expected:
        raise Unfit(f"{what} row: expected {expected} columns, found {len(fields)}")
    return fields


def _bandwidth_row(line: str) -> BandwidthRow:
    size, iters, peak, average, rate = _numbers(line, 5, "bandwidth")
    return BandwidthRow(integer(size, "#bytes"), integer(iters, "#iterations"), decimal(peak, "BW peak"),
                        decimal(average, "BW average"), decimal(rate, "MsgRate"))


def _latency_columns(header: str) -> list[str] | None:
    """The latency columns a header names, or None when it does not start with t_min[usec] or names another."""
    names = [match.group(1) for match in LAT_COLUMN.finditer(header)]
    rest = LAT_COLUMN.sub("", LAT_HEADER.sub("", header)).strip()
    if not names or names[0] != "t_min" or rest:
        return None
    return names


LATENCY_FIELDS = {"t_min": "t_min", "t_max": "t_max", "t_typical": "t_typical", "t_avg": "t_avg",
                  "t_stdev": "t_stdev", "99% percentile": "p99", "99.9% percentile": "p99_9"}


def _latency_row(line: str, columns: list[str]) -> LatencyRow:
    fields = _numbers(line, 2 + len(columns), "latency")
    values: dict[str, float | None] = {name: None for name in LATENCY_FIELDS.values()}
    for column, raw in zip(columns, fields[2:]):
        values[LATENCY_FIELDS[column]] = decimal(raw, f"{column}[usec]")
    return LatencyRow(bytes=integer(fields[0], "#bytes"), iterations=integer(fields[1], "#iterations"), **values)


def _gpu_memory(device: re.Match[str] | None, allocated: int | None) -> GpuMemory | None:
    if device is None:
        return None
    runtime = {"rocm": "ROCm", "cuda": "CUDA"}.get(device.group(1).lower(), device.group(1))
    name = device.group(3).strip() if device.group(3) else None
    return GpuMemory(runtime, int(device.group(2)), name, device.group(4), allocated)


@dataclass
class _Side:
    """One result table as printed by one side of a run: its header's line number and its rows (number, text)."""

    header: int
    kind: str
    unit: str | None
    lat_columns: tuple[str, ...]
    rows: list[tuple[int, str]] = field(default_factory=list)
    closed: bool = False

    def row(self, text: str) -> BandwidthRow | LatencyRow:
        return _bandwidth_row(text) if self.kind == "bw" else _latency_row(text, list(self.lat_columns))

    def plain_rows(self) -> list[BandwidthRow] | list[LatencyRow] | None:
        """Every row of the table when each is of plain numbers only, as many as ``row`` reads (one search over
        them all, and read as ``row`` reads them), else None."""
        cells = 3 if self.kind == "bw" else len(self.lat_columns)
        rows = re.compile(PLAIN_ROW_START + PLAIN_CELL * cells + "$", re.ASCII | re.MULTILINE)
        found = rows.findall("\n".join(text for _, text in self.rows))
        if len(found) != len(self.rows):
            return None
        try:
            if self.kind == "bw":
                return [BandwidthRow(int(size), int(iterations), float(peak), float(average), float(rate))
                        for size, iterations, peak, average, rate in found]
            fields = [LATENCY_FIELDS[column] for column in self.lat_columns]
            return [LatencyRow(bytes=int(row[0]), iterations=int(row[1]), **_latency_values(fields, row[2:]))
                    for row in found]
        except ValueError:  # a cell of more than one dot, or of dots only: read row by row
            return None


def _latency_values(fields: list[str], cells: tuple[str, ...]) -> dict[str, float | None]:
    values: dict[str, float | None] = dict.fromkeys(LATENCY_FIELDS.values())
    for name, cell in zip(fields, cells):
        values[name] = float(cell)
    return values


Row = TypeVar("Row", BandwidthRow, LatencyRow)


def _worse_latency(row: LatencyRow) -> float:
    return -(row.t_typical if row.t_typical is not None else row.t_avg or 0.0)


def _check_two_sides(sizes_per_side: list[list[int]]) -> None:
    """Two tables are the two sides of one run: each size at most once per side, one side's sizes among the other's.

    When both headers came before any row (two processes writing into one terminal), the rows cannot be told
    apart by side; then each size may appear at most twice. ``Unfit`` otherwise.
    """
    first, second = sizes_per_side
    sides = [second] if not first else [first, second]
    limit = 2 if not first else 1
    for sizes in sides:
        repeated = next((size for size in sizes if sizes.count(size) > limit), None)
        if repeated is not None:
            raise Unfit(f"size {repeated} printed {sizes.count(repeated)} times in two result tables: "
                        "not the two sides of one run")
    if first and not (set(first) <= set(second) or set(second) <= set(first)):
        size = min(set(first) ^ set(second))
        raise Unfit(f"two result tables whose sizes differ (size {size} printed by one side only, while that side "
                    "lacks sizes the other printed): not the two sides of one run")


def _one_row_per_size(rows: list[Row], sizes_per_side: list[list[int]], worse: Callable[[Row], float]) -> tuple[Row, ...]:
    """The rows of a one-sided table as they are; of a two-sided capture, the worse side's row of each size."""
    if len(sizes_per_side) < 2 or not rows:
        return tuple(rows)
    by_size: dict[int, list[Row]] = {}
    for row in rows:
        by_size.setdefault(row.bytes, []).append(row)
    order = max(sizes_per_side, key=len) if sizes_per_side[0] else list(by_size)
    return tuple(min(by_size[size], key=worse) for size in order if size in by_size)


def _table_header(stripped: str) -> tuple[str, str | None, tuple[str, ...]] | None:
    """(kind, unit, latency columns) of a result table's header line (stripped); None when the line is another one."""
    bw = BW_HEADER.fullmatch(stripped)
    if bw:
        return "bw", bw.group(1), ()
    if LAT_HEADER.search(stripped):
        columns = _latency_columns(stripped)
        return ("lat", None, tuple(columns)) if columns else ("lat?", None, ())
    return None


def _settings(text: str) -> list[tuple[str, str]] | None:
    """The ``key : value`` pairs of a header line when they make up the whole line (nothing but blanks between
    and around them), else None."""
    single = ONE_SETTING.fullmatch(text) if text.count(":") == 1 else None  # the usual line, found at once
    if single is not None:
        return [(single.group(1).strip(), single.group(2))]
    pairs: list[tuple[str, str]] = []
    end = 0
    for match in SETTING.finditer(text):
        if text[end:match.start()].strip():
            return None
        pairs.append((match.group(1).strip(), match.group(2)))
        end = match.end()
    return pairs if pairs and not text[end:].strip() else None


def _gpu_line(text: str, stripped: str, ascii_line: bool) -> bool:
    """A "Using ROCm Device with ID" or "allocated ... bytes of GPU buffer" line (``stripped``: its text stripped).
    Both patterns start with blanks and a word ("Using", "allocated", any case): an ASCII line whose first
    character is another cannot match (its only blank is the space: tabs are expanded, control characters
    replaced)."""
    if ascii_line and stripped[:1] not in GPU_FIRST_CHARACTERS:
        return False
    return bool(GPU_DEVICE.match(text) or GPU_BUFFER.match(text))


def _read_tables(reading: Reading, sides: list[_Side]) -> tuple[list[BandwidthRow | LatencyRow], list[list[int]], bool]:
    """The rows of the tables (each row read whole, else unread), the sizes per side, and whether the tables are
    complete (closed by their dash line, every row read). Two tables that are not the two sides of one run are
    read from neither: their rows are unread."""
    sizes: list[list[int]] = []
    rows: list[BandwidthRow | LatencyRow] = []
    read: list[tuple[int, str]] = []  # the lines of ``rows``
    for side in sides:
        plain = side.plain_rows()
        if plain is not None:
            rows += plain
            read += side.rows
            sizes.append([row.bytes for row in plain])
            continue
        sizes.append([])
        for number, text in side.rows:
            try:
                row = side.row(text)
            except Unfit as exc:
                line = Line(number, text)
                reading.unread(line, str(exc), first_word(line))
            else:
                rows.append(row)
                read.append((number, text))
                sizes[-1].append(row.bytes)
    if len(sides) == 2:
        try:
            _check_two_sides(sizes)
        except Unfit as exc:
            for number, text in read:
                line = Line(number, text)
                reading.unread(line, str(exc), first_word(line))
            return [], sizes, False
    reading.used_all(number for number, _ in read)
    complete = all(side.closed for side in sides) and len(read) == sum(len(side.rows) for side in sides)
    return rows, sizes, complete


@parser("perftest", "ib_write_bw / ib_send_bw / ib_read_bw / ib_*_lat output: header, per-size table, errors")
def parse_perftest(text: str) -> Parsed[PerftestResult]:
    """Parse one perftest output (client or server side, or both sides of one run in one capture).

    Read by the parsing rule: a table row is read only whole (five numbers of a bandwidth table, as many as its
    header names of a latency table), else it costs only its own size and is kept unread; a header line is read
    only when its ``key : value`` pairs make up the whole line; perftest's own messages (the connection banner,
    ``local address``, GID lines) are known. A table not closed by its dash line (a cut capture), or with a row
    not read, is ``complete=False``: its best value is not known (``max_average_bw`` says so)."""
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    test: str | None = None
    settings: list[tuple[str, str]] = []
    errors: list[PerftestError] = []
    sides: list[_Side] = []
    closed = 0
    ignoring: str | None = None  # the reason a table's lines are not read (a third table, another kind)
    gpu: re.Match[str] | None = None
    allocated: int | None = None
    table_open = both_sides_one_closed = False  # a table's rows may follow; the second side's rows may follow
    for number, text in reading.content_texts():
        if "\t" in text:
            text = text.expandtabs(TAB_STOP)  # a tab-aligned copy reads as the spaced one
        stripped = text.strip()
        header = _table_header(stripped) if TABLE_HEADER_PART in stripped else None
        starts_with_digit = stripped[:1].isdigit()
        in_table = table_open or (both_sides_one_closed and starts_with_digit)
        if header is not None:
            kind, unit, columns = header
            if kind == "lat?":
                ignoring = "a latency table whose header names columns this parser does not know"
            elif len(sides) == 2 or sides and (kind, unit) != (sides[0].kind, sides[0].unit):
                ignoring = "more result tables than the two sides of one run, or of another kind: one run at a time"
            else:
                sides.append(_Side(number, kind, unit, columns))
                table_open, both_sides_one_closed = len(sides) > closed, len(sides) == 2 and closed == 1
                reading.known_at(number)
                continue
            reading.unread(Line(number, text), ignoring)
        elif ignoring is not None:
            if SEPARATOR_PART in text and SEPARATOR.match(text):
                ignoring = None
                reading.known_at(number)
            else:
                line = Line(number, text)
                reading.unread(line, ignoring, first_word(line))
        elif in_table and SEPARATOR_PART in text and SEPARATOR.match(text):
            next(side for side in sides if not side.closed).closed = True
            closed += 1
            table_open, both_sides_one_closed = len(sides) > closed, len(sides) == 2 and closed == 1
            reading.known_at(number)
        elif in_table and starts_with_digit:
            sides[-1].rows.append((number, text))
        elif _may_be_error(text, ascii_line := text.isascii()) and (error := _classify_error(text)) is not None:
            errors.append(error)
            reading.used_at(number)
        elif TITLE_PART in text and (title := TEST_TITLE.match(text)) is not None:
            test = test or title.group(1)
            reading.used_at(number) if test == title.group(1) and not sides else reading.known_at(number)
        elif _gpu_line(text, stripped, ascii_line):
            gpu = gpu or GPU_DEVICE.match(text)
            buffer = GPU_BUFFER.match(text)
            allocated = allocated if allocated is not None or buffer is None else int(buffer.group(1))
            reading.used_at(number)
        elif SEPARATOR_PART in text and SEPARATOR.match(text) or INFORMATION.match(stripped):
            reading.known_at(number)
        elif test is not None and (pairs := _settings(text)) is not None:
            if sides:
                reading.known_at(number)  # the other side's header, printed again in a capture of both sides
            else:
                settings += pairs
                reading.used_at(number)
        else:
            reading.unread(Line(number, text), "not a line perftest prints")
    rows, sizes, complete = _read_tables(reading, sides)
    header_values = dict(settings)
    kind = sides[0].kind if sides else None
    result = PerftestResult(
        test=test,
        bidirectional=bool(test and "Bidirectional" in test),
        kind=kind,
        bw_unit=sides[0].unit if sides else None,
        device=header_values.get("Device"),
        num_qps=_int_setting(header_values, "Number of qps"),
        transport=header_values.get("Transport type"),
        connection=header_values.get("Connection type"),
        mtu_bytes=_int_setting(header_values, "Mtu"),
        link_type=header_values.get("Link type"),
        gid_index=_int_setting(header_values, "GID index"),
        gpu_memory=_gpu_memory(gpu, allocated),
        settings=tuple(settings),
        bandwidth_rows=_one_row_per_size(rows if kind == "bw" else [], sizes, lambda row: row.bw_average),
        latency_rows=_one_row_per_size(rows if kind == "lat" else [], sizes, _worse_latency),
        errors=tuple(errors),
        sides=max(len(sides), 1),
        complete=complete and bool(sides),
    )
    return reading.done(result, nothing="neither a result table (#bytes #iterations ...) nor a perftest error message")


ERROR_PRIORITY = ("completion", "port_in_use", "connection", "no_device", "failure")


def primary_error(result: PerftestResult) -> PerftestError | None:
    """The most telling error of a failed run (a completion status before a generic "Failed to ...")."""
    if not result.errors:
        return None
    return min(result.errors, key=lambda error: ERROR_PRIORITY.index(error.kind))


def _raise_if_failed(result: PerftestResult) -> None:
    error = primary_error(result)
    if error is not None:
        raise MeasurementMissing(f"perftest failed ({error.kind}): {error.line}")


def _bandwidth_rows(result: PerftestResult) -> tuple[BandwidthRow, ...]:
    _raise_if_failed(result)
    if result.kind != "bw" or not result.bandwidth_rows:
        raise MeasurementMissing("perftest output has no bandwidth table (or none of its rows was understood)")
    return result.bandwidth_rows


def convert_bw(value: float, unit: str, to_unit: str) -> float:
    """``value`` from one perftest bandwidth unit to another, exactly (MB/sec and MiB/sec: 2^20 B/s; Gb/sec: 10^9 b/s)."""
    if unit == to_unit:
        return value
    if unit in BYTES_PER_SECOND and to_unit in BITS_PER_SECOND:
        return value * BYTES_PER_SECOND[unit] * 8 / BITS_PER_SECOND[to_unit]
    if unit in BITS_PER_SECOND and to_unit in BYTES_PER_SECOND:
        return value * BITS_PER_SECOND[unit] / 8 / BYTES_PER_SECOND[to_unit]
    if unit in BYTES_PER_SECOND and to_unit in BYTES_PER_SECOND:
        return value * BYTES_PER_SECOND[unit] / BYTES_PER_SECOND[to_unit]
    raise MeasurementMissing(f"perftest bandwidth unit {unit!r} cannot be converted to {to_unit!r}")


def max_average_bw(result: PerftestResult, unit: str = "Gb/sec") -> float:
    """Highest "BW average" over all message sizes ("average >= 700 Gb/s at some point during the test"), in ``unit``.

    A table in another unit is converted exactly (``convert_bw``). Raises MeasurementMissing when the run failed
    or printed no bandwidth table.
    """
    rows = _bandwidth_rows(result)
    if not result.complete:
        raise MeasurementMissing("perftest table cut short or with a row not understood: its highest average is not known")
    return convert_bw(max(row.bw_average for row in rows), str(result.bw_unit), unit)


def average_bw_at(result: PerftestResult, size_bytes: int, unit: str = "Gb/sec") -> float:
    """"BW average" at one message size, in ``unit`` (converted exactly from the table's unit)."""
    rows = _bandwidth_rows(result)
    for row in rows:
        if row.bytes == size_bytes:
            return convert_bw(row.bw_average, str(result.bw_unit), unit)
    raise MeasurementMissing(f"perftest table has no row for {size_bytes} bytes "
                             f"(sizes {rows[0].bytes}..{rows[-1].bytes})")


def typical_latency_us(result: PerftestResult, size_bytes: int | None = None) -> float:
    """``t_typical`` in microseconds at ``size_bytes`` (default: the only or smallest size)."""
    _raise_if_failed(result)
    rows = [row for row in result.latency_rows if size_bytes is None or row.bytes == size_bytes]
    if not rows:
        raise MeasurementMissing(f"perftest output has no latency row{'' if size_bytes is None else f' for {size_bytes} bytes'}")
    value = rows[0].t_typical
    if value is None:
        raise MeasurementMissing("perftest latency table has no t_typical column")
    return value


def completion_errors(result: PerftestResult) -> tuple[PerftestError, ...]:
    """The "Failed status N: wr_id W syndrom S" errors (status 12: packets dropped in the network)."""
    return tuple(error for error in result.errors if error.kind == "completion")


def uses_gpu_memory(result: PerftestResult) -> bool:
    """True when the output shows a GPU buffer in use (a "Using ROCm/CUDA Device" line or "Use ... memory : ON")."""
    if result.gpu_memory is not None:
        return True
    return any(key.startswith("Use ") and key.endswith(" memory") and value == "ON" for key, value in result.settings)
