"""``pytest --preflight``: the summary of ``gpufabric preflight`` printed before the first test, for the checks the
run's ``-k`` and ``-m`` select (on the controller; the probe goes to the live nodes, never into a recording)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.options import FabricOptions
from pytest_gpufabric.startup import RunSetup

PLUGIN_NAME = "gpufabric-preflight"


class PreflightReport:
    """Probes the nodes once the session starts and writes the summary to the terminal."""

    def __init__(self, setup: RunSetup, options: FabricOptions, suite_dir: Path | None = None) -> None:
        self._setup = setup
        self._options = options
        self._suite_dir = suite_dir

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        write = reporter.write_line if reporter is not None else print
        if reporter is not None:
            reporter.section("gpufabric preflight", sep="-")
        for line in self._lines(session.config):
            write(line)

    def _lines(self, config: pytest.Config) -> list[str]:
        if self._options.record_mode == "none":
            return ["preflight: not run on a replay (no command reaches a node)"]
        from pytest_gpufabric.preflight.cli import live_probe, run_preflight

        probe = live_probe(self._setup, verify_host_keys=self._options.verify_host_keys)
        lines, _ = run_preflight(self._setup, probe, keyword=config.option.keyword or None,
                                 markexpr=config.option.markexpr or None, launcher=config.getoption("mpi_launcher"),
                                 suite_dir=self._suite_dir)
        return lines
