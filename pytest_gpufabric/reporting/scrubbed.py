"""Secrets out of everything a test report carries, before any reporter reads it.

The plugin's report wrapper hands every report of a cluster run through ``scrubbed_report`` in the process
that ran the item (an xdist worker or the only process). What the terminal (``-rA``, ``--tb``), pytest-html,
allure-pytest, ``results.jsonl`` and xdist's controller later read is that copy: the failure text and
traceback, the captured output sections, the plugin's data (messages, measurements, commands) and the
pytest-html extras. Allure's status message is taken from the exception itself, so ``scrub_exception``
replaces the exception it sees. Node ids and locations stay as they are: they identify the item (xdist,
``--lf``) and are made of inventory names.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gpufabric.recording.scrub import Scrubber

IDENTITY_FIELDS = frozenset({"nodeid", "location"})
LINES_FIELD = "lines"  # pytest's serialized traceback entries: the text, one string per line


def _scrub_lines(value: Any, scrubber: Scrubber) -> Any:
    if not isinstance(value, list) or not all(isinstance(line, str) for line in value):
        return scrub_data(value, scrubber)
    text = "\n".join(value)
    scrubbed = scrubber.scrub(text)
    return value if scrubbed == text else scrubbed.split("\n")


def scrub_data(value: Any, scrubber: Scrubber) -> Any:
    """``value`` (plain data: dicts, lists, tuples, strings) with every string scrubbed. The ``lines`` of a
    serialized traceback entry are scrubbed as one text, so a secret spanning lines (a key block) goes."""
    if isinstance(value, str):
        return scrubber.scrub(value)
    if isinstance(value, dict):
        return {
            key: _scrub_lines(item, scrubber) if key == LINES_FIELD else scrub_data(item, scrubber)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(scrub_data(item, scrubber) for item in value)
    return value


def scrubbed_report(config: pytest.Config, report: pytest.TestReport, scrubber: Scrubber) -> pytest.TestReport:
    """A copy of ``report`` with no secret in any of its texts (the report itself when it holds none)."""
    data = config.hook.pytest_report_to_serializable(config=config, report=report)
    if data is None:
        return report
    scrubbed = {key: value if key in IDENTITY_FIELDS else scrub_data(value, scrubber) for key, value in data.items()}
    if scrubbed == data:
        return report
    copy: pytest.TestReport = config.hook.pytest_report_from_serializable(config=config, data=scrubbed)
    return copy


def scrub_exception(call: pytest.CallInfo[Any], scrubber: Scrubber) -> None:
    """Let reporters that read the exception (Allure's status message) see its text scrubbed; the kind of
    exception (an assertion, a ``pytest.fail``, anything else) is kept, as Allure judges by it."""
    if call.excinfo is None:
        return
    exc = call.excinfo.value
    text = str(exc)
    clean = scrubber.scrub(text)
    if clean == text:
        return
    replacement: BaseException
    if isinstance(exc, pytest.fail.Exception):
        replacement = pytest.fail.Exception(clean, pytrace=exc.pytrace)
    elif isinstance(exc, AssertionError):
        replacement = AssertionError(clean)
    else:
        replacement = ScrubbedError(f"{type(exc).__name__}: {clean}")
    try:
        raise replacement  # an ExceptionInfo needs a traceback
    except BaseException as raised:  # noqa: BLE001 - it is the exception just raised
        call.excinfo = pytest.ExceptionInfo.from_exception(raised)


class ScrubbedError(Exception):
    """Stands in for an exception whose text held a secret (its type name is kept in the message)."""
