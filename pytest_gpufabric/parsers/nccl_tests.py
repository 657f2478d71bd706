"""nccl-tests / rccl-tests ``*_perf`` output, in text (old and new layouts) and in ``-J`` JSON.

Text layout: a ``# nThread ...`` line, a ``# Using devices`` block of ``Rank`` lines, a column header
naming ``time algbw busbw #wrong`` once (single placement) or twice (out-of-place, then in-place), one row
per size, then ``# Out of bounds values : N OK`` and ``# Avg bus bandwidth : X``. Rows are read from
the right (the measurement groups) so that an empty ``redop`` column (hypercube, alltoall in some
versions) does not shift the numbers. NCCL_DEBUG lines and MPI warnings interleaved with the table are
known; a row that starts with a digit but does not fit the header is refused (unread), never shifted. Under
Open MPI's ``mpirun --tag-output`` every line starts with ``[<job>,<rank>]<stdout>:`` (or ``<stderr>``): the
prefixes are taken off first (with the indentation a pasted copy may add before them). An output without a result table, without rows or without its summary lines
(a failed or cut run) is refused: it is not a measurement.

nccl-tests before 2.13 (NVIDIA/nccl-tests commit 51af557, 2022-08) and rccl-tests builds derived from them name
the fourth column ``error``: the largest deviation from the expected result, printed ``%5.0le`` (``0e+00``,
``5e-07``) or ``N/A`` with checking off. It is kept as ``max_error``, never read as a count; those builds decide
correctness in the ``# Out of bounds values`` line alone.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, line_of
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.textutil import fail, parse_float

TOOL = "nccl-tests"
JSON_TOOL = "nccl-tests-json"

CORRECTNESS_COLUMNS = ("#wrong", "error")
RUN_LINE = re.compile(r"^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)")
VALIDATION = re.compile(r"\bvalidation:\s*(\d+)")
TESTS_VERSION = re.compile(r"^#?\s*(?:nccl-tests version|rccl-tests: Version)\s+(\S+)")
NCCL_VERSION = re.compile(r"NCCL version (\S+)")
COLLECTIVE = re.compile(r"^#\s*Collective test starting:\s*(\S+)")
RANK_LINE = re.compile(r"^\s*#\s*Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)"
                       r"\s+\[([0-9a-fA-Fx:.]+)\]\s+(.+?)\s*$")
OUT_OF_BOUNDS = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)\s*$")
ROW_START = re.compile(r"^\d+\s+\d+\s")
DEBUG_LINE = re.compile(r"\bNCCL (?:INFO|WARN|TRACE)\b")
AVG_BUSBW = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*(\S+)\s*$")
TAG = re.compile(r"(?m)^[ \t]*\[\d+,\d+\]<std(?:out|err)>:")  # Open MPI mpirun --tag-output (a pasted copy may indent it)


@dataclass(frozen=True)
class RankDevice:
    """One ``# Rank`` line: which process and GPU a rank ran on."""

    rank: int
    group: int | None
    pid: int
    host: str
    device: int
    bus_id: str
    name: str


@dataclass(frozen=True)
class Measurement:
    """One placement of one size: time in microseconds, bandwidths in GB/s, #wrong (None = N/A, not checked).

    ``max_error`` is the ``error`` column of older builds (largest deviation; None = N/A or a ``#wrong`` table).
    """

    time_us: float
    algbw_gbs: float
    busbw_gbs: float
    wrong: int | None
    max_error: float | None = None


@dataclass(frozen=True)
class SizeRow:
    """One message size. ``in_place`` is None for a single-placement table."""

    size_bytes: int
    count: int
    datatype: str
    redop: str | None
    root: int | None
    out_of_place: Measurement
    in_place: Measurement | None


@dataclass(frozen=True)
class NcclTestsResult:
    """One ``*_perf`` run. Fields a layout does not print are None (never guessed)."""

    collective: str | None
    tests_version: str | None
    nccl_version: str | None
    nthreads: int | None
    ngpus: int | None
    min_bytes: int | None
    max_bytes: int | None
    validation: bool | None
    devices: tuple[RankDevice, ...]
    rows: tuple[SizeRow, ...]
    out_of_bounds: int | None
    out_of_bounds_ok: bool | None
    avg_busbw_gbs: float | None
    correctness_column: str = "#wrong"



def _integer(value: str, what: str) -> int:
    if not value.lstrip("-").isdigit():
        raise Unfit(f"{what}: expected an integer, found {value!r}")
    return int(value)


def _float(value: str, what: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise Unfit(f"{what}: expected a number, found {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise Unfit(f"{what}: expected a finite number, found {value!r}")
    return number


def _wrong(value: str) -> int | None:
    if value == "N/A":
        return None
    # nccl-tests marks an error count over its threshold with asterisks.
    return _integer(value.rstrip("*"), "#wrong")


def _max_error(value: str) -> float | None:
    return None if value == "N/A" else _float(value, "error")


def _measurement(fields: list[str], column: str) -> Measurement:
    time, algbw, busbw, check = fields
    timing = (_float(time, "time"), _float(algbw, "algbw"), _float(busbw, "busbw"))
    if column == "error":
        return Measurement(*timing, wrong=None, max_error=_max_error(check))
    return Measurement(*timing, wrong=_wrong(check))


def _row(line: str, groups: int, column: str) -> SizeRow:
    fields = line.split()
    prefix, measured = fields[:-4 * groups], fields[-4 * groups:]
    if len(prefix) < 3 or len(prefix) > 5 or len(measured) != 4 * groups:
        raise Unfit(f"the row does not match the column header (size count type [redop] [root], then {groups} x "
                    f"time algbw busbw {column})")
    size, count, datatype, *rest = prefix
    root: int | None = None
    if rest and re.fullmatch(r"-?\d+", rest[-1]):
        root = int(rest.pop())
    if len(rest) > 1:
        raise Unfit(f"unexpected columns {rest!r} before the measurements")
    redop = rest[0] if rest else None
    out_of_place = _measurement(measured[:4], column)
    in_place = _measurement(measured[4:], column) if groups == 2 else None
    return SizeRow(_integer(size, "size"), _integer(count, "count"), datatype, redop, root, out_of_place, in_place)


def _header_groups(line: str) -> tuple[int, str]:
    """(number of measurement groups, name of their correctness column: ``#wrong`` or ``error``)."""
    names = line.lstrip("#").split()
    found = [names[index + 3] for index in range(len(names) - 3)
             if tuple(names[index:index + 3]) == ("time", "algbw", "busbw") and names[index + 3] in CORRECTNESS_COLUMNS]
    if len(found) not in (1, 2) or len(set(found)) != 1:
        raise Unfit("column header: expected 'time algbw busbw #wrong' (or 'error') once or twice")
    return len(found), found[0]


def _is_column_header(line: str) -> bool:
    names = line.lstrip("#").split()
    return len(names) > 4 and names[0] == "size" and "busbw" in names


def _test_failure(lines: list[Line]) -> str:
    """``; <reason>`` from nccl-tests' ``Test failure <file>:<line>`` report and the line after it, or ''."""
    for index, line in enumerate(lines):
        if "Test failure" in line.text:
            reason = next((after.stripped for after in lines[index + 1:] if after.stripped), "")
            return f"; {line.stripped.lstrip('. ')}" + (f": {reason}" if reason else "")
    return ""


@parser("nccl-tests", "nccl-tests / rccl-tests *_perf text output: devices, per-size busbw, #wrong, out of bounds")
def parse_nccl_tests(text: str) -> Parsed[NcclTestsResult]:
    """Parse the text output of one nccl-tests or rccl-tests ``*_perf`` run."""
    reading = Reading(TOOL, TAG.sub("", text) if isinstance(text, str) else text)
    lines = reading.content()
    values: dict[str, Any] = {"collective": None, "tests_version": None, "nccl_version": None, "run": None,
                              "validation": None, "out_of_bounds": None, "avg_busbw": None}
    devices: list[RankDevice] = []
    rows: list[SizeRow] = []
    groups, column, tables = 0, "#wrong", 0
    for line in lines:
        stripped = line.stripped
        if DEBUG_LINE.search(stripped):
            if _read_line(stripped, values, devices):
                reading.used(line)  # "NCCL INFO NCCL version 2.28.3+cuda13.0"
            else:
                reading.known(line)
        elif groups and tables == 1 and stripped[:1].isdigit():
            with reading.row(line, scope=stripped.split()[0]):
                if not ROW_START.match(stripped):
                    raise Unfit("the row does not start with 'size count' (output cut?)")
                rows.append(_row(stripped, groups, column))
        elif _is_column_header(stripped):
            tables += 1
            if tables > 1:
                reading.unread(line, "a second result table in one output: one *_perf run at a time")
                continue
            with reading.row(line):
                groups, column = _header_groups(stripped)
        elif tables > 1 and stripped[:1].isdigit():
            reading.unread(line, "a row of the second result table")
        elif _read_line(stripped, values, devices):
            reading.used(line)
        elif stripped.startswith("#"):
            reading.known(line)  # the header's other lines, the table's unit line, notes
    if not groups:
        fail(TOOL, "no result table (column header 'size count type ... busbw') found" + _test_failure(lines))
    if not rows:
        fail(TOOL, "result table has no rows (run failed or output truncated)" + _test_failure(lines))
    if values["out_of_bounds"] is None and values["avg_busbw"] is None:
        fail(TOOL, "no '# Out of bounds values' / '# Avg bus bandwidth' summary (output truncated?)")
    run = values["run"]
    oob = values["out_of_bounds"]
    result = NcclTestsResult(
        collective=values["collective"],
        tests_version=values["tests_version"],
        nccl_version=values["nccl_version"],
        nthreads=int(run.group(1)) if run else None,
        ngpus=int(run.group(2)) if run else None,
        min_bytes=int(run.group(3)) if run else None,
        max_bytes=int(run.group(4)) if run else None,
        validation=values["validation"],
        devices=tuple(devices),
        rows=tuple(rows),
        out_of_bounds=int(oob.group(1)) if oob else None,
        out_of_bounds_ok=(oob.group(2) == "OK") if oob else None,
        avg_busbw_gbs=parse_float(TOOL, values["avg_busbw"], "Avg bus bandwidth") if values["avg_busbw"] else None,
        correctness_column=column,
    )
    return reading.done(result)


def _read_line(line: str, values: dict[str, Any], devices: list[RankDevice]) -> bool:
    """Pick the header and summary facts out of one non-table line; False when it holds none."""
    matchers = ((RUN_LINE, "run"), (OUT_OF_BOUNDS, "out_of_bounds"))
    for pattern, key in matchers:
        match = pattern.match(line)
        if match:
            values[key] = match
            if key == "run":
                validation = VALIDATION.search(line)
                values["validation"] = bool(int(validation.group(1))) if validation else None
            return True
    rank = RANK_LINE.match(line)
    if rank:
        devices.append(RankDevice(int(rank.group(1)), int(rank.group(2)) if rank.group(2) else None,
                                  int(rank.group(3)), rank.group(4), int(rank.group(5)), rank.group(6),
                                  rank.group(7)))
        return True
    simple = ((TESTS_VERSION, "tests_version"), (COLLECTIVE, "collective"), (AVG_BUSBW, "avg_busbw"))
    for pattern, key in simple:
        match = pattern.match(line)
        if match and values[key] is None:
            values[key] = match.group(1)
            return True
    nccl = NCCL_VERSION.search(line)
    if nccl and values["nccl_version"] is None:
        values["nccl_version"] = nccl.group(1)
        return True
    return False


def _json_field(data: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        fail(JSON_TOOL, f"{where}: missing key {key!r}")
    value = data[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        fail(JSON_TOOL, f"{where}.{key}: expected {kind.__name__}, found {type(value).__name__}")
    return value


def _json_measurement(data: Any, where: str) -> Measurement:
    if not isinstance(data, dict):
        fail(JSON_TOOL, f"{where}: expected an object")
    wrong = data.get("nwrong")
    if isinstance(wrong, str) and wrong.strip() == "N/A" or wrong is None and "nwrong" in data:
        wrong_count: int | None = None
    else:
        number = _json_field(data, "nwrong", float, where)
        if number < 0 or number != int(number):
            fail(JSON_TOOL, f"{where}.nwrong: expected a count, found {number!r}")
        wrong_count = int(number)
    return Measurement(_json_field(data, "time", float, where), _json_field(data, "alg_bw", float, where),
                       _json_field(data, "bus_bw", float, where), wrong_count)


def _json_row(data: Any, index: int) -> SizeRow:
    where = f"results[{index}]"
    if not isinstance(data, dict):
        fail(JSON_TOOL, f"{where}: expected an object")
    root_text = str(data.get("root", "")).strip()
    redop = str(data.get("redop", "")).strip() or None
    in_place = _json_measurement(data["in_place"], f"{where}.in_place") if "in_place" in data else None
    return SizeRow(_json_field(data, "size", int, where), _json_field(data, "count", int, where),
                   _json_field(data, "type", str, where), redop,
                   int(root_text) if re.fullmatch(r"-?\d+", root_text) else None,
                   _json_measurement(data.get("out_of_place"), f"{where}.out_of_place"), in_place)


@parser("nccl-tests-json", "nccl-tests -J JSON output (version 3): config, devices, per-size results, summary")
def parse_nccl_tests_json(text: str) -> Parsed[NcclTestsResult]:
    """Parse the JSON file written by ``*_perf -J <file>.json`` (recent nccl-tests): one document, read as a
    whole (a value of the wrong type refuses it)."""
    reading = Reading(JSON_TOOL, text)
    result = _json_result(text)
    reading.used(line_of(reading, '"results"'))
    reading.rest_known()
    return reading.done(result)


def _json_result(text: str) -> NcclTestsResult:
    if not isinstance(text, str) or not text.strip():
        fail(JSON_TOOL, "empty output")
    try:
        data = json.loads(text)
    except ValueError as error:
        fail(JSON_TOOL, f"not JSON ({error})")
    if not isinstance(data, dict):
        fail(JSON_TOOL, "top level is not an object")
    config = _json_field(data, "config", dict, "top level")
    results = _json_field(data, "results", list, "top level")
    if not results:
        fail(JSON_TOOL, "results list is empty (run failed or file truncated)")
    devices = []
    for index, device in enumerate(_json_field(config, "devices", list, "config")):
        where = f"config.devices[{index}]"
        if not isinstance(device, dict):
            fail(JSON_TOOL, f"{where}: expected an object")
        group = device.get("group")
        devices.append(RankDevice(_json_field(device, "rank", int, where),
                                  group if isinstance(group, int) and not isinstance(group, bool) else None,
                                  _json_field(device, "pid", int, where), _json_field(device, "hostname", str, where),
                                  _json_field(device, "device", int, where), _json_field(device, "device_hex", str, where),
                                  _json_field(device, "device_info", str, where)))
    oob = data.get("out_of_bounds")
    avg = data.get("average_bus_bandwidth")
    args = data.get("args")
    collective = args[0].rsplit("/", 1)[-1] if isinstance(args, list) and args and isinstance(args[0], str) else None
    nccl_version = data.get("nccl_version")
    return NcclTestsResult(
        collective=collective,
        tests_version=None,
        nccl_version=str(nccl_version) if nccl_version is not None else None,
        nthreads=_json_field(config, "nthreads", int, "config"),
        ngpus=_json_field(config, "ngpus", int, "config"),
        min_bytes=_json_field(config, "minimum_bytes", int, "config"),
        max_bytes=_json_field(config, "maximum_bytes", int, "config"),
        validation=bool(config["validation"]) if isinstance(config.get("validation"), int) else None,
        devices=tuple(devices),
        rows=tuple(_json_row(row, index) for index, row in enumerate(results)),
        out_of_bounds=_json_field(oob, "count", int, "out_of_bounds") if isinstance(oob, dict) else None,
        out_of_bounds_ok=(str(oob.get("okay")).lower() == "true") if isinstance(oob, dict) else None,
        avg_busbw_gbs=_json_field(avg, "bandwidth", float, "average_bus_bandwidth") if isinstance(avg, dict) else None,
    )


def _placement(row: SizeRow, in_place: bool) -> Measurement:
    if not in_place:
        return row.out_of_place
    if row.in_place is None:
        raise MeasurementMissing(f"no in-place column at {row.size_bytes} bytes (single-placement table)")
    return row.in_place


def busbw_at(result: NcclTestsResult, size_bytes: int, in_place: bool = True) -> float:
    """Bus bandwidth (GB/s) at ``size_bytes`` (e.g. 8 GB = 8589934592); MeasurementMissing when not measured."""
    for row in result.rows:
        if row.size_bytes == size_bytes:
            return _placement(row, in_place).busbw_gbs
    sizes = f"{result.rows[0].size_bytes}..{result.rows[-1].size_bytes}" if result.rows else "none"
    raise MeasurementMissing(f"{result.collective or 'nccl-tests'}: no row for {size_bytes} bytes (sizes {sizes})")


def busbw_at_largest(result: NcclTestsResult, in_place: bool = True) -> tuple[int, float]:
    """(size, busbw GB/s) of the largest message size measured."""
    if not result.rows:
        raise MeasurementMissing(f"{result.collective or 'nccl-tests'}: no rows")
    row = max(result.rows, key=lambda item: item.size_bytes)
    return row.size_bytes, _placement(row, in_place).busbw_gbs


def rows_with_wrong_results(result: NcclTestsResult) -> tuple[SizeRow, ...]:
    """Rows where out-of-place or in-place ``#wrong`` is above 0."""
    return tuple(row for row in result.rows
                 if (row.out_of_place.wrong or 0) > 0 or (row.in_place is not None and (row.in_place.wrong or 0) > 0))


def any_wrong(result: NcclTestsResult) -> bool:
    """True when any size reports ``#wrong`` > 0."""
    return bool(rows_with_wrong_results(result))


def correctness_checked(result: NcclTestsResult) -> bool:
    """True when every out-of-place ``#wrong`` holds a count; False when any is N/A (``-c 0``).

    In-place N/A is not counted: alltoall and sendrecv print N/A there even with checking on. An ``error``
    table counts as checked when every out-of-place ``error`` holds a value.
    """
    if result.correctness_column == "error":
        return all(row.out_of_place.max_error is not None for row in result.rows)
    return all(row.out_of_place.wrong is not None for row in result.rows)
