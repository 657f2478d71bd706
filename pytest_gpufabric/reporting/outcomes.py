"""Outcomes that mean what they say: an item that could not be measured is an *error*, never a failure.

A check that cannot obtain its value (unreachable node, missing tool or recording, unparsable output,
missing threshold) raises a ``GpufabricError``; the plugin turns it into ``pytest.fail(pytrace=False)`` so
that no traceback is rendered, and marks the report with ``error_kind``. pytest, pytest-html and Allure
would count such a call-phase ``pytest.fail`` as *failed*; the hooks here count it as an error instead:

- the terminal: category ``error`` (``N failed, M errors``), word ``NOT MEASURED``;
- pytest-html: the row's result is ``Error`` and the Errors/Failed counts are corrected;
- Allure: the exception Allure sees is the ``GpufabricError`` itself, so the status is *broken*;
- ``results.jsonl``: ``outcome: "error"`` (see ``pytest_gpufabric.results``).
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_gpufabric.errors import GpufabricError
from pytest_gpufabric.results import gpufabric_data

NOT_MEASURED_WORD = "NOT MEASURED"
HTML_ERROR_CELL = '<td class="col-result">Error</td>'


def is_unmeasured(report: pytest.TestReport) -> bool:
    """True for a failed report whose item could not be measured (the plugin set ``error_kind``)."""
    return bool(report.failed and gpufabric_data(report).get("error_kind"))


def unmeasured_cause(excinfo: pytest.ExceptionInfo[BaseException] | None) -> GpufabricError | None:
    """The ``GpufabricError`` behind a ``pytest.fail`` raised while handling it (its ``__context__``)."""
    if excinfo is None or not isinstance(excinfo.value, pytest.fail.Exception):
        return None
    cause = excinfo.value.__context__
    return cause if isinstance(cause, GpufabricError) else None


def show_cause_to_allure(call: pytest.CallInfo[None]) -> None:
    """Let the reporters that judge by the exception (Allure: *broken*) see the ``GpufabricError``.

    Called after pytest made the report (which keeps the short ``pytrace=False`` text) and before the
    outer report wrappers (allure-pytest's) read ``call.excinfo``.
    """
    cause = unmeasured_cause(call.excinfo)
    if cause is not None:
        call.excinfo = pytest.ExceptionInfo.from_exception(cause)


class OutcomeReporting:
    """Registered on the controller (or the only process): terminal status and pytest-html counts."""

    def __init__(self) -> None:
        self._html_data: Any = None
        self._html_corrections = 0

    @pytest.hookimpl(tryfirst=True)
    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.when == "call" and is_unmeasured(report):
            return "error", "E", NOT_MEASURED_WORD
        return None

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_report_title(self, report: Any) -> None:
        self._html_data = report

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report: pytest.TestReport, cells: list[str]) -> None:
        if report.when == "call" and is_unmeasured(report) and cells:
            cells[0] = HTML_ERROR_CELL
            self._html_corrections += 1

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_html_results_summary(self) -> None:
        """pytest-html counted the call-phase errors as failed (it judges by phase); move them to errors."""
        if self._html_data is None or not self._html_corrections:
            return
        outcomes = self._html_data.outcomes
        outcomes["failed"]["value"] -= self._html_corrections
        outcomes["error"]["value"] += self._html_corrections
        self._html_corrections = 0
