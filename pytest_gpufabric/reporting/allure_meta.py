"""Allure's run-level files (environment and categories), written once by the controller."""

from __future__ import annotations

import json
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

    def __init__(self, results_dir: Path, environment: dict[str, str], scrubber: Scrubber) -> None:
        self.results_dir = results_dir
        self.environment = {key: scrubber.scrub(value) for key, value in environment.items()}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        self.results_dir.mkdir(parents=True, exist_ok=True)
        lines = [f"{key}={value}" for key, value in sorted(self.environment.items())]
        (self.results_dir / "environment.properties").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.results_dir / "categories.json").write_text(json.dumps(CATEGORIES, indent=2), encoding="utf-8")


def run_environment(site: str, profiles: list[str], cluster: str, mode: str) -> dict[str, str]:
    return {"gpufabric.version": __version__, "site": site, "profiles": ",".join(profiles), "inventory": cluster, "mode": mode}
