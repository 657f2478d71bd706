"""pytest hooks of pytest-gpufabric: options, inventory-driven parametrization, verdict reporting."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from pytest_gpufabric.applicability import Applicability, NotApplicable
from pytest_gpufabric.catalog import SCOPES, CheckSpec, item_scopes
from pytest_gpufabric.checks.cabling_plan import PLAN_KEY, inventory_plan, load_cabling_plan
from pytest_gpufabric.collection_estimate import ItemEstimate, check_test_scopes, estimate
from pytest_gpufabric.collection_gc import CollectionGc, process_ends_with_session
from pytest_gpufabric.collection_memory import CollectionShare, add_markers, item_runs, keep_node_ids, parametrize_shared, reorder_only_where_needed, slim_item
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import GpufabricError, TransportError, UsageError
from pytest_gpufabric.items import CheckTest, CheckTests
from pytest_gpufabric.measuring.rails import error_kind
from pytest_gpufabric.measuring.verdicts import skipped_pair_record
from pytest_gpufabric.options import add_options, read_options
from pytest_gpufabric.reporting.acceptance.fleet_plugin import FleetReporting
from pytest_gpufabric.reporting.acceptance.run_plugin import RunReporting, run_info
from pytest_gpufabric.reporting.allure_meta import AllureLabels, AllureRunInfo, run_environment
from pytest_gpufabric.reporting.evidence import attach_evidence, evidence_data
from pytest_gpufabric.reporting.outcomes import OutcomeReporting, show_cause_to_allure
from pytest_gpufabric.reporting.scrubbed import scrub_exception, scrubbed_report
from pytest_gpufabric.results import PROPERTY_KEY, ResultsReporter, ResultsWriter
from pytest_gpufabric.scheduling.pair_option import parse_pair_policy, selected_node_pairs
from pytest_gpufabric.scheduling.rerun import FailedPairs
from pytest_gpufabric.session import FabricSession
from pytest_gpufabric.shapes import shape_of
from pytest_gpufabric.signoff.run_setup import retest_base, run_files
from pytest_gpufabric.signoff.runs import new_run_id
from pytest_gpufabric.startup import prepare_run
from pytest_gpufabric.suite_index import check_of_node_id

SESSION_KEY = pytest.StashKey[FabricSession]()
CONTEXT_KEY = pytest.StashKey[CheckContext]()
ERROR_KEY = pytest.StashKey[tuple[str, str]]()
RUN_ID_KEY = pytest.StashKey[str]()
TESTS_KEY = pytest.StashKey[CheckTests]()
PARAMETERS_KEY = pytest.StashKey[dict[str, list[Any]]]()
CALLS_KEY = pytest.StashKey[dict[str, Any]]()  # scope -> (its parameters, the call specs of its first check test)
SHARE_KEY = pytest.StashKey[CollectionShare]()  # what the collected items of this process share
ESTIMATE_KEY = pytest.StashKey[ItemEstimate]()
RUN_ID_INPUT = "gpufabric_run_id"


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _run_id(config: pytest.Config) -> str:
    if _is_worker(config):
        return str(config.workerinput[RUN_ID_INPUT])  # type: ignore[attr-defined]
    return new_run_id()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "check(id): the catalog id of the documented check this test implements")
    tests = config.stash[TESTS_KEY] = CheckTests()
    config.stash[PARAMETERS_KEY] = {}
    config.stash[CALLS_KEY] = {}
    config.stash[SHARE_KEY] = CollectionShare()
    try:
        options = read_options(config)
        if options.cluster is None:
            return
        from pytest_gpufabric.transport.factory import transport_factory

        setup = prepare_run(options.cluster, options.thresholds_dir, options.scrub)
        if options.recording_dir is None and not config.option.collectonly:  # it connects: its SSH files are read
            from pytest_gpufabric.transport.ssh_files import ssh_file_problems

            problems = ssh_file_problems(setup.inventory, options.verify_host_keys)
            if problems:
                raise UsageError("\n".join(problems))
        policy = parse_pair_policy(config.getoption("pair_policy"))
        found = config.stash[ESTIMATE_KEY] = estimate(setup.inventory, policy, check_test_scopes(_collected_paths(config)))
        if found.items > config.getoption("max_items"):
            raise UsageError(found.refusal(config.getoption("max_items")))  # node pairs are listed only when needed
        rerun_file = config.getoption("rerun_failed_pairs")
        rerun = FailedPairs.load(_results_file(Path(rerun_file))) if rerun_file else None
        baseline = _baseline(config.getoption("compare_with"), options.results_dir)
        fanout = config.getoption("fanout")
        if fanout is not None and fanout < 1:
            raise UsageError(f"--fanout must be at least 1, got {fanout}")
        plan_file = config.getoption("cabling_plan")
        config.stash[PLAN_KEY] = (load_cabling_plan(Path(plan_file), setup.inventory) if plan_file
                                  else inventory_plan(setup.inventory, str(options.cluster)))
    except GpufabricError as exc:
        raise pytest.UsageError(str(exc)) from None
    inventory, loaded = setup.inventory, setup.profiles
    config.pluginmanager.register(CollectionGc(process_ends_with_session(config)), "gpufabric-collection-gc")
    run_id = _run_id(config)
    config.stash[RUN_ID_KEY] = run_id
    config.stash[SESSION_KEY] = FabricSession(
        inventory=inventory,
        profiles=loaded,
        catalog=setup.catalog,
        make_transport=transport_factory(inventory, options, run_id, setup.scrubber),
        scrubber=setup.scrubber,
        command_timeout_s=options.command_timeout_s,
        pair_policy=policy,
        select_node_pairs=lambda: selected_node_pairs(policy, inventory),
        pair_checks=config.stash[ESTIMATE_KEY].pair_tests,
        rerun=rerun,
        fanout=fanout,
    )
    from pytest_gpufabric.scheduling.plugin import register as register_scheduling

    register_scheduling(config, config.stash[SESSION_KEY], run_id, tests)
    from pytest_gpufabric.switches.snapshots import register as register_switch_counters

    register_switch_counters(config, config.stash[SESSION_KEY], lambda item: (tests.check_id(item), tests.target(item)))
    if not _is_worker(config):
        if config.getoption("preflight"):
            from pytest_gpufabric.preflight.run_plugin import PLUGIN_NAME, PreflightReport

            config.pluginmanager.register(PreflightReport(setup, options, None), PLUGIN_NAME)
        info = run_info(inventory, loaded, run_id, options.mode_label, str(options.cluster))
        try:
            retest = retest_base(options.results_dir, config.getoption("retest_of"), rerun_file,
                                 bool(getattr(config.option, "lf", False)))
            files = run_files(setup, options, info, retest)
        except GpufabricError as exc:
            raise pytest.UsageError(str(exc)) from None
        fleet = FleetReporting(info, files.directory.results_file, baseline)
        writer = ResultsWriter(files.directory.results_file, on_first_record=files.start,
                               check_of=lambda node_id: check_of_node_id(config.rootpath, node_id), summarize=fleet.summarize)
        config.pluginmanager.register(ResultsReporter(writer), "gpufabric-results")
        config.pluginmanager.register(fleet, "gpufabric-fleet")
        config.pluginmanager.register(OutcomeReporting(), "gpufabric-outcomes")
        reporting = RunReporting(files, options.report_dir, options.recording_dir, lambda: writer.records, options.paper,
                                 baseline, fleet.failing_outliers)
        config.pluginmanager.register(reporting, "gpufabric-run-report")
        alluredir = getattr(config.option, "allure_report_dir", None)
        if alluredir:
            environment = run_environment(inventory.site, sorted(loaded), str(options.cluster), options.mode_label)
            config.pluginmanager.register(AllureRunInfo(Path(alluredir), environment, setup.scrubber, run_id),
                                          "gpufabric-allure")
    if getattr(config.option, "allure_report_dir", None):
        share = config.stash[SHARE_KEY]
        labels = AllureLabels(tests.check_id, lambda check_id: setup.catalog.get(check_id).title
                              if check_id in setup.catalog else check_id,
                              lambda item, markers: add_markers(item, markers, share))
        config.pluginmanager.register(labels, "gpufabric-allure-labels")


def _collected_paths(config: pytest.Config) -> list[Path]:
    """The files and folders the run collects (its arguments, without ``::`` selections)."""
    base = config.invocation_params.dir
    return [base / str(arg).split("::", 1)[0] for arg in config.args]


def pytest_sessionstart(session: pytest.Session) -> None:
    """The item estimate, printed once (by the controller under xdist) before any collection."""
    found = session.config.stash.get(ESTIMATE_KEY, None)
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if found is not None and terminal is not None and not _is_worker(session.config):
        terminal.write_line(found.line())


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """xdist: every worker shares the controller's run id (used to stamp re-recorded episodes)."""
    run_id = node.config.stash.get(RUN_ID_KEY, None)
    if run_id is not None:
        node.workerinput[RUN_ID_INPUT] = run_id


def _results_file(path: Path) -> Path:
    """A results file, or the results of a run directory or results root (its latest run)."""
    from pytest_gpufabric.signoff.runs import RESULTS_FILE, run_directory_of

    if path.is_file():
        return path
    try:
        return run_directory_of(path) / RESULTS_FILE
    except GpufabricError:
        return path  # FailedPairs.load names the missing file


def _baseline(ref: str | None, results_root: Path) -> Path | None:
    """The results file of ``--compare-with`` (a run directory, its results file, or a run id under the results
    root), found before this run starts its own directory."""
    if not ref:
        return None
    from pytest_gpufabric.reporting.acceptance.comparison import resolve_results

    return resolve_results(ref, results_root)


def _session(config: pytest.Config) -> FabricSession | None:
    return config.stash.get(SESSION_KEY, None)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    scopes = [s for s in SCOPES if s in metafunc.fixturenames]
    if not scopes or metafunc.definition.get_closest_marker("check") is None:
        return  # only check-tagged tests are parametrized over the inventory
    session = _session(metafunc.config)
    if session is None:
        return  # reported as a usage error once collection is complete (pytest_collection_modifyitems)
    if len(scopes) > 1:
        raise pytest.UsageError(f"{metafunc.definition.nodeid} takes several scope fixtures {scopes}; a check has one scope")
    scope = scopes[0]
    parametrize_shared(metafunc, scope, _parameter_sets(metafunc.config, session, scope), metafunc.config.stash[CALLS_KEY])


def _parameter_sets(config: pytest.Config, session: FabricSession, scope: str) -> list[Any]:
    """The targets of ``scope`` as pytest parameters with their ids: built once per process and shared by
    every check test of the scope (pytest takes them as they are, with no id to derive)."""
    built = config.stash[PARAMETERS_KEY]
    if scope not in built:
        targets, ids = session.targets(scope)
        built[scope] = [pytest.param(target, id=target_id) for target, target_id in zip(targets, ids)] or [
            pytest.param(None, marks=pytest.mark.skip(reason=f"the inventory has no {scope} to test"), id=f"no-{scope}")]
    return built[scope]


def _rerun_keeps(rerun: FailedPairs, check_id: str, target: Any) -> bool:
    """Under --rerun-failed-pairs: only node-pair items holding a failed NIC pair of their own check."""
    return hasattr(target, "rail_pairs") and rerun.holds(check_id, target.a.name, target.b.name)


def _check_spec(session: FabricSession, test: CheckTest, item: pytest.Item) -> CheckSpec:
    """The catalog entry of a test function's check (checked once per function, named by its first item)."""
    check_id, scope = test.check_id, str(test.scope)
    if check_id is None:
        raise pytest.UsageError(f"{item.nodeid}: uses the {scope} fixture but has no @pytest.mark.check(ID)")
    if check_id not in session.catalog:
        raise pytest.UsageError(f"{item.nodeid}: check id {check_id!r} is not in the catalog")
    spec = session.catalog.get(check_id)
    if scope not in item_scopes(spec.scope):
        raise pytest.UsageError(f"{item.nodeid}: {check_id} has scope {spec.scope!r} in the catalog but the test takes {scope!r}")
    return spec


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = _session(config)
    tests = config.stash[TESTS_KEY]
    if session is None:
        needing = [i.nodeid for i in items if tests.check_id(i) and any(s in getattr(i, "fixturenames", ()) for s in SCOPES)]
        if needing:
            raise pytest.UsageError(f"{len(needing)} checks (e.g. {needing[0]}) need a cluster: pass --cluster=site.yaml")
        return
    applicability = Applicability(session)
    share = config.stash[SHARE_KEY]
    specs: dict[CheckTest, CheckSpec] = {}
    skips: dict[str, pytest.MarkDecorator] = {}
    kept, dropped = 0, []  # the kept items moved up in place: no second list of every item
    for item in items:
        test = tests.of(item)
        target = test.target(item)
        if target is None:
            items[kept] = item
            kept += 1
            continue
        spec = specs.get(test)
        if spec is None:
            spec = specs[test] = _check_spec(session, test, item)
        if session.rerun is not None and not _rerun_keeps(session.rerun, spec.id, target):
            dropped.append(item)
            continue
        items[kept] = item
        kept += 1
        reason = applicability.reason(spec, target)
        if reason:
            skip = skips.get(reason)
            if skip is None:
                skip = skips[reason] = pytest.mark.skip(reason=reason)  # one marker for every item of a reason
            add_markers(item, [skip], share)
    del items[kept:]
    if dropped:
        config.hook.pytest_deselected(items=dropped)


@pytest.hookimpl(wrapper=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> Generator[None, Any, Any]:
    """The items of each test function as they are built: drop and share what pytest keeps per item until it runs
    (``collection_memory``). Done per function, not once a module is collected (``pytest_itemcollected``): the
    memory freed goes to the next function's items, and a module of 1.4 M items never holds them all unslimmed."""
    made = yield
    if isinstance(made, list) and _session(collector.config) is not None:
        share = collector.config.stash[SHARE_KEY]
        for item in made:
            if isinstance(item, pytest.Item):
                slim_item(item, share)
    return made


@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    if _session(session.config) is not None:
        reorder_only_where_needed(session.config)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, None, Any]:
    """Node ids that keep their string again before the first item runs (``collection_memory.keep_node_ids``)."""
    if not session.config.option.collectonly and _session(session.config) is not None:
        keep_node_ids(session.items)
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, Any]:
    """An item's own stash and per-run lists while it runs (``collection_memory.item_runs``)."""
    with item_runs(item):
        return (yield)


@pytest.fixture
def gpufabric(request: pytest.FixtureRequest) -> CheckContext:
    """The check context of this item: run commands on its nodes, judge values against the profile."""
    session = _session(request.config)
    if session is None:
        raise pytest.UsageError("the gpufabric fixture needs --cluster=site.yaml")
    item = request.node
    test = request.config.stash[TESTS_KEY].of(item)
    check_id = test.check_id
    if check_id is None:
        raise pytest.UsageError(f"{item.nodeid}: the gpufabric fixture needs @pytest.mark.check(ID)")
    target = test.target(item)
    try:
        for machine in (*getattr(target, "nodes", ()), *_switch_of(target)):
            session.connect(machine.name)  # an unreachable machine is a setup error of this item, not a failed check
    except TransportError as exc:
        item.stash[ERROR_KEY] = _error_kind(exc)
        pytest.fail(str(exc), pytrace=False)

    def run(node: str, command: str, timeout_s: float | None, cached: bool) -> Any:
        return session.run(node, command, timeout_s, cached, item.nodeid)

    profile = session.profile_for(getattr(target, "nodes", ()))
    for switch in _switch_of(target):  # a switch OS whose model differs has its own section (Junos: queues)
        profile = profile.for_platform(switch.os)
    context = CheckContext(session.catalog.get(check_id), getattr(target, "id", item.name), profile, run,
                           parsed=session.parsed, shape=shape_of(target))
    if context.check.measured == "mesh" and session.mesh_engine is not None and hasattr(target, "rail_pairs"):
        mesh, pair = session.mesh_engine, (target.a.name, target.b.name)
        context.mesher = lambda: mesh.outputs(check_id, pair)
    if hasattr(target, "rail_pairs"):
        rails = target.rail_pairs()
        context.rail_pairs = tuple(r for r in rails if session.rerun is None or session.rerun.keeps(check_id, r.id))
        context.fanout = session.fanout or max(1, len(context.rail_pairs))
        engine = session.round_engine
        if engine is not None:
            context.measurer = lambda measure: engine.measure(item.nodeid, context.rail_pairs, measure)
    item.stash[CONTEXT_KEY] = context
    return context


def _switch_of(target: Any) -> tuple[Any, ...]:
    """The switch a switch or switch-port item reads (empty for node items)."""
    switch = getattr(target, "switch", None)
    return (switch,) if switch is not None else ()


def _error_kind(exc: BaseException) -> tuple[str, str]:
    return error_kind(exc), str(exc)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A check that could not measure (GpufabricError) fails without a traceback: the message says it all,
    and pytest does not spend time rendering source code for thousands of unreachable items. The verdict
    comes from what was read: a value already judged failing fails the item whatever could not be measured
    after it, and a part left unmeasured never lets the item pass."""
    context = item.stash.get(CONTEXT_KEY, None)
    try:
        result = yield
        if context is not None:
            context.settle()
        return result
    except GpufabricError as exc:
        if context is not None and context.failed():
            context.fail(context.failure_hint, also=exc if exc not in context.unmeasured else None)
        item.stash[ERROR_KEY] = _error_kind(exc)
        pytest.fail(str(exc), pytrace=False)


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The innermost report wrapper: adds the plugin's data, shows the outer ones (Allure) the error
    behind an unmeasured item's ``pytest.fail``, and hands every report of a cluster run on scrubbed of
    secrets (the run's one scrubber), so no reporter ever sees one."""
    report = yield
    session = _session(item.config)
    if session is None:
        return report
    test = item.config.stash[TESTS_KEY].of(item)
    if test.check_id is not None:
        _add_check_data(item, call, report, session, test)
    scrub_exception(call, session.scrubber)
    return scrubbed_report(item.config, report, session.scrubber)


def _add_check_data(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport, session: FabricSession, test: CheckTest
) -> None:
    check_id = str(test.check_id)
    spec = session.catalog.get(check_id)
    context = item.stash.get(CONTEXT_KEY, None)
    data: dict[str, Any] = {"check_id": check_id, "title": spec.title, "check_source": spec.source, "hint": spec.hint}
    target = test.target(item)
    data["target"] = getattr(target, "id", None)
    data["scope"] = test.scope
    error = item.stash.get(ERROR_KEY, None) if report.failed else None
    if error is None and call.excinfo is not None and call.excinfo.errisinstance(GpufabricError):
        error = _error_kind(call.excinfo.value)
    if error is not None:
        data["error_kind"], message = error
        data["message"] = f"{data['error_kind']}: {message}"
        report.longrepr = f"{check_id} {spec.title}: ERROR at {data['target']}\n  {data['message']}"
        show_cause_to_allure(call)
    if context is not None and report.when == "call":
        data.update(evidence_data(context))
        attach_evidence(item, report, context, session.scrubber)
    if report.skipped and call.excinfo is not None and call.excinfo.errisinstance(NotApplicable):
        data["not_applicable"] = True  # the check found it does not apply: documented, not missing
    if report.skipped and spec.scope == "nic_pair" and hasattr(target, "rail_pairs"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        data["pairs"] = [skipped_pair_record(pair, reason, spec.source) for pair in target.rail_pairs()]
    report.user_properties.append((PROPERTY_KEY, data))


def pytest_sessionfinish(session: pytest.Session) -> None:
    fabric = _session(session.config)
    if fabric is not None:
        fabric.close()
