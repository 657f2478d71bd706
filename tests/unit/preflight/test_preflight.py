"""Preflight without a lab: the prerequisites as data (every implemented check declared), the probe command run in a
real bash on this machine, the reading of its answer, the selection of checks as pytest's -k/-m, the summary lines
and the README table written from the data."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pytest_gpufabric.cli import main
from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.preflight.cli import checks_in_order
from pytest_gpufabric.preflight.probe import probe_command, read_answer
from pytest_gpufabric.preflight.requirements import Probe, Requirement, load_prerequisites, parse_prerequisites
from pytest_gpufabric.preflight.runner import NodeProbe, probe_node
from pytest_gpufabric.preflight.selection import Selection
from pytest_gpufabric.preflight.summary import findings
from pytest_gpufabric.preflight.table import prerequisites_table
from pytest_gpufabric.suite_index import default_suite_dir, implemented_checks
from pytest_gpufabric.transport.local import LocalTransport

REPO = Path(__file__).resolve().parents[3]


def test_every_implemented_check_declares_its_prerequisites() -> None:
    declared = set(load_prerequisites().checks)
    implemented = {check.check_id for check in implemented_checks(default_suite_dir())}
    assert implemented <= declared, sorted(implemented - declared)
    assert declared <= implemented, sorted(declared - implemented)


@pytest.mark.parametrize(("body", "problem"), [
    ("requirements: {x: {label: X, probe: {program: 'a;rm'}}}\nchecks: {}", "plain word"),
    ("requirements: {x: {label: X, probe: {kernel: 1}}}\nchecks: {}", "expected one of program"),
    ("requirements: {x: {label: X, probe: {option: [a]}}}\nchecks: {}", "expected 2 plain word"),
    ("requirements: {}\nchecks: {DRV-001: [nope]}", "unknown requirement 'nope'"),
    ("requirements: {x: {label: X, probe: {root: true}}}\nchecks: {DRV-001: [{need: x, when: {os: linux}}]}", "when:"),
])
def test_a_bad_prerequisites_file_is_refused_with_one_line(body: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        parse_prerequisites(body)


def _requirement(key: str, **probe: object) -> Requirement:
    kind, value = next(iter(probe.items()))
    if kind == "any":
        return Requirement(key, key, Probe("any", alternatives=tuple(value)))  # type: ignore[arg-type]
    words = tuple(value) if isinstance(value, (list, tuple)) else ((str(value),) if value is not True else ())
    return Requirement(key, key, Probe(kind, words))


def test_the_probe_runs_in_bash_on_this_machine() -> None:
    asked = [
        _requirement("bash", program="bash"),
        _requirement("nothing", program="gpufabric-no-such-program"),
        _requirement("cmdline", file="/proc/cmdline"),
        _requirement("no-file", file="/gpufabric/no/such/file"),
        _requirement("norc", option=["bash", "--norc"]),
        _requirement("no-option", option=["bash", "--gpufabric-no-such-option"]),
        _requirement("runs", runs=["true"]),
        _requirement("fails", runs=["false"]),
        _requirement("either", any=[Probe("program", ("gpufabric-no-such-program",)), Probe("file", ("/proc/cmdline",))]),
        _requirement("libc", links=["bash", "libc"]),
    ]
    probe = probe_node(LocalTransport(), "here", asked, 30.0)
    assert probe.error is None
    assert dict(probe.holds) == {"bash": True, "nothing": False, "cmdline": True, "no-file": False, "norc": True,
                                 "no-option": False, "runs": True, "fails": False, "either": True, "libc": True}


def test_an_answer_line_that_is_not_understood_is_kept_and_its_requirement_unanswered() -> None:
    asked = [_requirement("a", program="a"), _requirement("b", program="b")]
    answer = read_answer("0 1\nbash: warning: setlocale: LC_ALL: cannot change locale\n7 1\n", asked)
    assert answer.holds == {"a": True}
    assert answer.unread == ("bash: warning: setlocale: LC_ALL: cannot change locale", "7 1")
    assert 'r="${r}1 $a"' in probe_command(asked)


def test_selection_follows_pytest_k_and_m() -> None:
    from pytest_gpufabric.inventory import load_inventory

    node = load_inventory(REPO / "recordings" / "demo" / "site.yaml", ["mi300x-thor2", "h100-thor2-vmware"]).nodes[0]
    perf = Selection(default_suite_dir(), "perftest")
    assert {c.check_id for c in perf.checks if perf.on_node(c, node)} == {f"PERF-00{i}" for i in range(1, 9)}
    own = Selection(default_suite_dir(), "test_gdrcopy and node01")
    assert [c.check_id for c in own.checks if own.on_node(c, node)] == ["GPU-006"]
    assert not [c for c in own.checks if own.on_node(c, node.__class__(**{**node.__dict__, "name": "node02"}))]
    assert len(Selection(default_suite_dir(), None, "check").checks) == len(Selection(default_suite_dir()).checks)
    assert Selection(default_suite_dir(), None, "not check").checks == []
    with pytest.raises(UsageError, match="-k: wrong expression"):
        Selection(default_suite_dir(), "perftest and")


def test_a_missing_requirement_is_one_line_with_the_nodes_folded_and_the_checks_it_costs() -> None:
    prerequisites = load_prerequisites()
    nodes = [f"node{i:03d}" for i in range(1, 33)]
    checks = {node: ["PERF-001", "PERF-002", "PERF-003", "PERF-005"] for node in nodes}
    facts = {node: {"gpu_vendor": "nvidia", "launcher": "mpirun"} for node in nodes}
    probes = [NodeProbe(node, {"perftest-cuda": node > "node016", "perftest": True}) for node in nodes]
    probes = [NodeProbe(p.node, {**p.holds, "perftest-cuda": not (p.node >= "node017")}) for p in probes]
    probes[-1] = NodeProbe("node032", error="unreachable: connection refused")
    lines = [finding.line() for finding in findings(probes, checks, prerequisites, facts)]
    assert lines == ["unreachable: connection refused: node032: every selected check (4)",
                     "perftest (ib_write_bw with --use_cuda): node[017-031]: PERF-001, PERF-003, PERF-005"]


def test_the_readme_table_is_written_from_the_prerequisites() -> None:
    table = prerequisites_table(load_prerequisites(), checks_in_order())
    assert table in (REPO / "README.md").read_text(), "regenerate the README table: gpufabric preflight --table"


def test_preflight_of_this_machine_names_what_it_lacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = yaml.safe_load((REPO / "fixtures" / "inventories" / "minimal-site.yaml").read_text())
    site["transport"] = "local"
    site["defaults"]["platform"] = {"gpu_vendor": "nvidia", "gpu_model": "H100", "nic_vendor": "broadcom",
                                    "deployment": "baremetal", "gpu_link": "nvswitch"}
    site["profile"] = "hgx-h100-thor2"
    (tmp_path / "site.yaml").write_text(yaml.safe_dump(site))
    assert main(["preflight", f"--cluster={tmp_path / 'site.yaml'}", "-k", "test_gdrcopy"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "gdrcopy_sanity (GDRCopy tests): node[01-02]: GPU-006" in lines  # (a container may lack /proc/modules too)
    assert lines[-1].startswith("preflight: 2 node(s) probed in ")
    assert main(["preflight", f"--cluster={tmp_path / 'site.yaml'}", "-k", "test_iommu"]) == 0  # /proc/cmdline
    assert capsys.readouterr().out.splitlines()[-1].endswith(": nothing missing")
