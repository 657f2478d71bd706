"""Inventory problems: one line each (`FILE:LINE: LOCATION: what is wrong`), collected, then raised."""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_gpufabric.errors import ProblemsError


class InventoryError(ProblemsError):
    """The inventory file is invalid; `.problems` lists every problem found, one line each."""


@dataclass(frozen=True)
class Problem:
    """One problem: where it is (line 0 = the file as a whole) and what is wrong."""

    line: int
    location: str
    message: str

    def format(self, file_label: str) -> str:
        where = f"{file_label}:{self.line}" if self.line > 0 else file_label
        return f"{where}: {self.location}: {self.message}"


@dataclass
class ProblemLog:
    """Collects the problems of one file, in the order of their lines."""

    file_label: str
    problems: list[Problem] = field(default_factory=list)

    def add(self, line: int, location: str, message: str) -> None:
        self.problems.append(Problem(line, location, message))

    def lines(self) -> list[str]:
        ordered = sorted(self.problems, key=lambda problem: problem.line)  # stable: ties keep their order
        return [problem.format(self.file_label) for problem in ordered]

    def raise_if_any(self) -> None:
        if self.problems:
            raise InventoryError(self.lines())
