"""Judging measured values against expectations, and the messages an engineer reads on failure."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pytest_gpufabric.expectations import Expectation

Judged = tuple[str, Any, "str | None", str]  # a value to judge: (name, measured, where, detail)


@dataclass(frozen=True)
class Measurement:
    """One judged value: what was measured where, what was expected, from which document."""

    check: str
    name: str
    where: str
    measured: Any
    expected: str
    op: str
    threshold: Any
    unit: str
    source: str
    passed: bool
    detail: str = ""

    def line(self) -> str:
        unit = f" {self.unit}" if self.unit and self.measured is not None else ""
        status = "ok" if self.passed else "FAIL"
        detail = f" ({self.detail})" if self.detail else ""
        return f"[{status}] {self.where}: {self.name} = {self.measured!r}{unit}, expected {self.expected}{detail}"

    def as_record(self) -> dict[str, Any]:
        return asdict(self)


def judge(expectation: Expectation, measured: Any, where: str, detail: str = "") -> Measurement:
    """Compare one measured value (never None: missing values are errors, raised before this)."""
    return Measurement(
        check=expectation.check,
        name=expectation.name,
        where=where,
        measured=measured,
        expected=expectation.describe(),
        op=expectation.op,
        threshold=expectation.value,
        unit=expectation.unit,
        source=expectation.source,
        passed=expectation.holds_for(measured),
        detail=detail,
    )


def measurement_lines(m: Measurement, indent: str) -> list[str]:
    """A failing value as the messages show it: what was measured, and what was expected with its source."""
    return [f"{indent}measured: {m.where}: {m.name} = {m.measured!r}{' ' + m.unit if m.unit else ''}"
            f"{' (' + m.detail + ')' if m.detail else ''}",
            f"{indent}expected: {m.expected}   [source: {m.source}]"]


def failure_message(check_id: str, title: str, target_id: str, failed: list[Measurement], hint: str | None,
                    not_measured: list[str] | tuple[str, ...] = ()) -> str:
    """The text shown in the terminal, the HTML report and Allure for a failed check; ``not_measured`` names
    the parts of the check that could not be measured (the failure stands on what was read)."""
    lines = [f"{check_id} {title}: FAILED at {target_id}"]
    for m in failed:
        lines.extend(measurement_lines(m, "  "))
    lines.extend(f"  not measured: {text}" for text in not_measured)
    if hint:
        lines.append(f"  hint: {hint}")
    return "\n".join(lines)
