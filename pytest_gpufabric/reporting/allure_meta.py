"""Allure's run-level files (environment, categories, executor), written once by the controller, and the labels
of each check item (epic = area, feature = check id, story = title, severity), added where items are collected."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_gpufabric import __version__
from pytest_gpufabric.recording.scrub import Scrubber

CATEGORIES = [
    {"name": "Check failed: measured value outside the documented expectation", "matchedStatuses": ["failed"],
     "messageRegex": r"(?s).*FAILED at .*"},
    {"name": "Node unreachable (SSH)", "matchedStatuses": ["failed", "broken"], "messageRegex": r"(?s).*(transport|unreachable|host key|authentication).*"},
    {"name": "Missing measurement, threshold or recording (error, never a pass)", "matchedStatuses": ["failed", "broken"],
     "messageRegex": r"(?s).*(MeasurementMissing|ThresholdMissing|RecordingError|no recorded command|no recording).*"},
]


class AllureRunInfo:
    """Registered on the controller when ``--alluredir`` is given."""

    def __init__(self, results_dir: Path, environment: dict[str, str], scrubber: Scrubber, run_id: str = "") -> None:
        self.results_dir = results_dir
        self.environment = {key: scrubber.scrub(value) for key, value in environment.items()}
        self.run_id = run_id

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        lines = [f"{key}={value}" for key, value in sorted(self.environment.items())]
        (self.results_dir / "environment.properties").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.results_dir / "categories.json").write_text(json.dumps(CATEGORIES, indent=2), encoding="utf-8")
        executor = {"name": "pytest-gpufabric", "type": "pytest", "buildName": self.run_id,
                    "reportName": f"{self.environment.get('site', '')} fabric acceptance"}
        (self.results_dir / "executor.json").write_text(json.dumps(executor, indent=2), encoding="utf-8")


# Severity by area: what makes the fabric unusable or slow (links, pair traffic, collectives) is critical;
# configuration found wrong (drivers, firmware, QoS, PCIe, host, GPU, switch, VM settings) is normal.
CRITICAL_AREAS = frozenset({"LNK", "NET", "PERF", "COLL", "OSU"})


def allure_labels(check_id: str, title: str) -> list[pytest.MarkDecorator]:
    """allure-pytest's own label markers for a check item (read when the item runs)."""
    area = check_id.split("-", 1)[0]
    severity = "critical" if area in CRITICAL_AREAS else "normal"
    return [pytest.mark.allure_label(area, label_type="epic"), pytest.mark.allure_label(check_id, label_type="feature"),
            pytest.mark.allure_label(title, label_type="story"), pytest.mark.allure_label(severity, label_type="severity")]


class AllureLabels:
    """Registered in every process that collects (xdist workers too) when ``--alluredir`` is given."""

    def __init__(self, check_of: Callable[[pytest.Item], str | None], title_of: Callable[[str], str],
                 add_markers: Callable[[pytest.Item, list[pytest.MarkDecorator]], None]) -> None:
        self.check_of = check_of
        self.add_markers = add_markers  # the same labels on every item of a check: shared while the items wait
        self.title_of = title_of
        self._labels: dict[str, list[pytest.MarkDecorator]] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            check_id = self.check_of(item)
            if check_id is None:
                continue
            if check_id not in self._labels:
                self._labels[check_id] = allure_labels(check_id, self.title_of(check_id))
            self.add_markers(item, self._labels[check_id])


def run_environment(site: str, profiles: list[str], cluster: str, mode: str) -> dict[str, str]:
    return {"gpufabric.version": __version__, "site": site, "profiles": ",".join(profiles), "inventory": cluster, "mode": mode}
