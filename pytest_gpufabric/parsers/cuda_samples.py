"""CUDA samples: ``deviceQuery`` (GPU-005) result, device count and names, CUDA errors.

deviceQuery prints a title, ``Detected N CUDA Capable device(s)``, one ``Device N: "<name>"`` block of indented
properties per GPU, ``> Peer access from ...`` lines on several GPUs, a ``deviceQuery, CUDA Driver = CUDART, ...,
NumDevs = N`` line and ``Result = PASS|FAIL``; a failure prints ``cudaGetDeviceCount returned <code>`` and
``-> <reason>`` instead. Read by the parsing rule: a line of another form costs only its own facts (kept unread);
an output cut before ``Result =`` has no result (None), never a pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, integer
from pytest_gpufabric.parsers.registry import parser
from pytest_gpufabric.parsers.truncation import refuse_unfinished_line

TOOL = "device-query"
RESULT = re.compile(r"^Result = (PASS|FAIL)$")
DETECTED = re.compile(r"^Detected (\d+) CUDA Capable device\(s\)$")
NO_DEVICE = "There are no available device(s) that support CUDA"
DEVICE = re.compile(r'^Device (\d+): "(.*)"$')
SUMMARY = re.compile(r"^deviceQuery, CUDA Driver = CUDART, .*NumDevs = (\d+)(?:, Device\d+ = .*)?$")
ERROR = re.compile(r"^(\S+ returned -?\d+|-> .+)$")
TITLE = re.compile(r"^(\S+ )?Starting\.\.\.$|^CUDA Device Query \(Runtime API\) version \((CUDART|CUDA) (static|dynamic) linking\)$")
PEER = re.compile(r"^> Peer access from .+ : (Yes|No)$")


@dataclass(frozen=True)
class DeviceQuery:
    passed: Optional[bool]  # None when the output has no "Result =" line (cut short)
    device_count: Optional[int]  # from "Detected N CUDA Capable device(s)"; None when not printed
    device_names: tuple[str, ...]
    errors: tuple[str, ...]  # e.g. "cudaGetDeviceCount returned 802", "-> system not yet initialized"
    num_devs: Optional[int] = None  # from the closing "deviceQuery, CUDA Driver = CUDART, ..." line


@parser(TOOL, "deviceQuery: Result = PASS/FAIL, detected device count and names, CUDA error lines")
def parse_device_query(text: str) -> Parsed[DeviceQuery]:
    reading = Reading(TOOL, text)
    refuse_unfinished_line(reading, text)
    results: list[tuple[Line, str]] = []
    count: Optional[int] = None
    num_devs: Optional[int] = None
    names: list[str] = []
    errors: list[str] = []
    in_device = False
    for line in reading.content():
        stripped = line.stripped
        result, detected, device, summary = (RESULT.match(stripped), DETECTED.match(stripped), DEVICE.match(stripped),
                                             SUMMARY.match(stripped))
        if result:
            results.append((line, result.group(1)))
            reading.used(line)
        elif detected or stripped == NO_DEVICE:
            count = integer(detected.group(1), "devices") if detected else 0
            reading.used(line)
        elif device:
            names.append(device.group(2))
            in_device = True
            reading.used(line)
        elif summary:
            num_devs = integer(summary.group(1), "NumDevs")
            in_device = False
            reading.used(line)
        elif ERROR.match(stripped):
            errors.append(stripped)
            reading.used(line)
        elif TITLE.match(stripped) or PEER.match(stripped) or (in_device and line.indent):
            reading.known(line)  # a device's properties, peer access: not judged
        else:
            in_device = False
            reading.unread(line, "not a line deviceQuery prints")
    if len(results) > 1:  # two runs in one output: neither result is read
        for line, _ in results:
            reading.unread(line, "one of several 'Result =' lines")
    passed = results[0][1] == "PASS" if len(results) == 1 else None
    query = DeviceQuery(passed, count, tuple(names), tuple(errors), num_devs)
    return reading.done(query, nothing="no 'Result =', device or CUDA error line")
