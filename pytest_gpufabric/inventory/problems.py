"""Inventory problems: one line each (`FILE:LINE: LOCATION: what is wrong`), collected, then raised."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_gpufabric.errors import UsageError


class InventoryError(UsageError):
    """The inventory file is invalid; `.problems` lists every problem found, one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: list[str] = list(problems)
        super().__init__("\n".join(self.problems))

    def __reduce__(self) -> tuple[type[InventoryError], tuple[list[str]]]:
        return (type(self), (self.problems,))


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
