"""Command-line options of the plugin (one option group) and their validation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_gpufabric.bundled import thresholds_dir
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.collection_estimate import DEFAULT_MAX_ITEMS
from pytest_gpufabric.measuring.control import BOUND_FACTOR, BOUND_FLOOR_S

RECORD_MODES = ("once", "new_episodes", "all", "none")
DEFAULT_RESULTS_DIR = "gpufabric-results"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpufabric", "GPU fabric acceptance (pytest-gpufabric)")
    group.addoption("--cluster", metavar="SITE_YAML", help="cluster inventory (site.yaml) to test")
    group.addoption("--thresholds-dir", metavar="DIR", help="directory of threshold profiles (default: thresholds/ of the rootdir, else those installed with the plugin)")
    group.addoption("--record", metavar="DIR", help="record every command's output into DIR (see --record-mode)")
    group.addoption(
        "--record-mode", choices=RECORD_MODES, default="once",
        help="once: record if DIR has no recording, else replay only; new_episodes: replay what matches, record "
             "the rest; all: re-record everything; none: replay only (default: once)",
    )
    group.addoption("--replay", metavar="DIR", help="replay a recording offline: no command reaches any node")
    group.addoption("--scrub", metavar="REGEX", action="append", default=[], help="extra secret pattern to scrub from recordings (repeatable)")
    group.addoption("--command-timeout", metavar="SECONDS", type=float, help="bound every remote command (default: the inventory's ssh.command_timeout_s)")
    group.addoption("--gpufabric-results", metavar="DIR", default=DEFAULT_RESULTS_DIR, help=f"where results.jsonl and raw outputs go (default: {DEFAULT_RESULTS_DIR})")
    group.addoption("--gpufabric-report", metavar="DIR",
                    help="at the end of the run write the acceptance report into DIR: report.html, summary.xlsx, CSV files, report.pdf")
    group.addoption("--deviations", metavar="FILE",
                    help="approved deviations (YAML, a 'deviations:' list as in site.yaml); shown as deviations, never as passes")
    group.addoption("--retest-of", metavar="RUN",
                    help="this run retests RUN (a run directory or id under --gpufabric-results); default with --lf or "
                         "--rerun-failed-pairs: the run they read")
    group.addoption("--gpufabric-paper", choices=("a4", "letter"), default="a4",
                    help="paper size of the acceptance report's PDF files (default: a4)")
    group.addoption("--insecure-host-keys", action="store_true", help="accept unknown SSH host keys (NOT recommended; host keys are verified by default)")
    group.addoption("--pair-policy", metavar="POLICY", default="all",
                    help="node pairs of the pair checks: all, rounds:K (K circle rounds), same-leaf, or list:FILE (default: all)")
    group.addoption("--fanout", metavar="N", type=int,
                    help="NIC pairs measured at once (default: every NIC pair of a node pair)")
    group.addoption("--compare-with", metavar="RUN",
                    help="compare this run with an earlier one (its results.jsonl, directory or run id): terminal, and the "
                         "acceptance report with --gpufabric-report")
    group.addoption("--rerun-failed-pairs", metavar="RESULTS_JSONL",
                    help="measure again only the NIC pairs that failed or could not be measured in RESULTS_JSONL")
    group.addoption("--schedule-log", metavar="FILE", help="append one JSON line per traffic test (item, resources, start, end, worker)")
    group.addoption("--soak", metavar="DURATION", help="run the PERF-008 soak for DURATION (e.g. 8h, 30m); skipped when not given")
    group.addoption("--lock-dir", metavar="DIR",
                    help="directory of the NIC/GPU/port locks (default: <tmp>/gpufabric-locks-<site>, shared by every run "
                         "against the site on this machine)")
    group.addoption("--lock-timeout", metavar="SECONDS", type=float, default=3600.0, help="longest wait for a busy NIC/GPU (default: 3600)")
    group.addoption("--max-items", metavar="N", type=int, default=DEFAULT_MAX_ITEMS,
                    help=f"stop before collecting when the run would build more than N items (each pytest process "
                         f"holds them all; default: {DEFAULT_MAX_ITEMS:,})")
    group.addoption("--bound-factor", metavar="F", type=float, default=BOUND_FACTOR,
                    help=f"a traffic test is bounded by F x its profile's per-test time (default: {BOUND_FACTOR:g})")
    group.addoption("--bound-floor", metavar="SECONDS", type=float, default=BOUND_FLOOR_S,
                    help=f"and by at least SECONDS (default: {BOUND_FLOOR_S:g})")
    group.addoption("--mpi-launcher", choices=("mpirun", "srun"), default="mpirun", help="launcher of multi-node runs (default: mpirun)")
    group.addoption("--cabling-plan", metavar="CSV",
                    help="CAB-001's plan: node,nic,switch,port per line (default: each NIC's switch and switch_port in the inventory)")
    group.addoption("--preflight", action="store_true",
                    help="before the tests, probe every node for what the selected checks need (as gpufabric preflight)")


@dataclass(frozen=True)
class FabricOptions:
    cluster: Path | None
    thresholds_dir: Path
    recording_dir: Path | None
    record_mode: str | None
    scrub: tuple[str, ...]
    command_timeout_s: float | None
    results_dir: Path
    verify_host_keys: bool
    report_dir: Path | None = None
    deviations_file: Path | None = None
    paper: str = "a4"

    @property
    def mode_label(self) -> str:
        """How commands reach the nodes in this run, for reports."""
        if self.recording_dir is None:
            return "live"
        if self.record_mode == "none":
            return f"replay of {self.recording_dir}"
        return f"live, recorded ({self.record_mode}) into {self.recording_dir}"


def default_thresholds_dir(rootdir: Path) -> Path:
    """``thresholds/`` of ``rootdir`` (a checkout, or a site's own folder), else the profiles installed with the
    package."""
    here = rootdir / "thresholds"
    return here if here.is_dir() else thresholds_dir()


def read_options(config: pytest.Config) -> FabricOptions:
    """The plugin's options, checked for contradictions (one-line UsageError)."""
    opt = config.option
    if opt.record and opt.replay:
        raise UsageError("--record and --replay exclude each other (use --record DIR --record-mode none to replay)")
    recording_dir = Path(opt.replay or opt.record) if (opt.replay or opt.record) else None
    mode = "none" if opt.replay else (opt.record_mode if opt.record else None)
    if opt.command_timeout is not None and opt.command_timeout <= 0:
        raise UsageError(f"--command-timeout must be positive, got {opt.command_timeout:g}")
    for name, value in (("--bound-factor", opt.bound_factor), ("--bound-floor", opt.bound_floor), ("--max-items", opt.max_items)):
        if value <= 0:
            raise UsageError(f"{name} must be positive, got {value:g}")
    return FabricOptions(
        cluster=Path(opt.cluster) if opt.cluster else None,
        thresholds_dir=Path(opt.thresholds_dir) if opt.thresholds_dir else default_thresholds_dir(config.rootpath),
        recording_dir=recording_dir,
        record_mode=mode,
        scrub=tuple(opt.scrub),
        command_timeout_s=opt.command_timeout,
        results_dir=Path(opt.gpufabric_results),
        verify_host_keys=not opt.insecure_host_keys,
        report_dir=Path(opt.gpufabric_report) if opt.gpufabric_report else None,
        deviations_file=Path(opt.deviations) if opt.deviations else None,
        paper=opt.gpufabric_paper,
    )
