"""Where a run's controller CPU goes, by component: a pytest plugin for measuring, never for a real acceptance run.

    PYTHONPATH=. .venv/bin/python -m pytest -p tools.cpu_by_component suites/acceptance/test_perftest.py::... \
        --cluster=SITE --pair-policy=rounds:1 -n 0

For one run (``-n 0``: every thread in this process) it wraps the functions named in ``COMPONENTS`` and sums the CPU
time (``time.thread_time()``) of the thread that runs each one (the outermost call of a component only, so a
component is never counted twice within itself; components may nest in one another, e.g. the perftest parsing
inside the engine's job). It adds the CPU of the threads still alive at the end of the session (paramiko's reader
threads, from ``/proc/self/task/*/stat``), the main thread's CPU by phase (the items, the terminal summary), and
the whole process's. Printed at the end of the run, one ``CPU`` line each; the cycle collector's CPU by generation
and phase of the run (``gc.callbacks``) at the process's exit, after pytest's own last collections.
"""

from __future__ import annotations

import atexit
import functools
import gc
import importlib
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

# (module, owner in it or "", function name, component)
COMPONENTS = (
    ("pytest_gpufabric.exclusive.locks", "ResourceLocks", "hold", "NIC/GPU/port locks (held; enter and exit)"),
    ("pytest_gpufabric.exclusive.schedule_log", "ScheduleLog", "append", "schedule log"),
    ("pytest_gpufabric.transport.ssh", "SshTransport", "run", "SSH commands (with connecting)"),
    ("pytest_gpufabric.transport.ssh", "SshTransport", "_connect", "SSH connections (open or reuse)"),
    ("pytest_gpufabric.checks.perf", "", "_group_outcomes", "perftest outputs parsed"),
    ("pytest_gpufabric.results", "ResultsWriter", "add", "results writer (with the plan at the first record)"),
    ("pytest_gpufabric.reporting.acceptance.run_plugin", "RunReporting", "_verdict_line", "verdict line"),
    ("pytest_gpufabric.measuring.engine", "RoundEngine", "_measure_job", "engine jobs (with commands and parsing)"),
    ("pytest_gpufabric.measuring.engine", "RoundEngine", "_finish", "round stored for the other processes"),
)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class CpuByComponent:
    """The sums, and the wrappers that add to them."""

    def __init__(self) -> None:
        self.cpu: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.phases: list[tuple[str, float]] = []
        self._lock = threading.Lock()
        self._inside = threading.local()
        self._restore: list[tuple[Any, str, Any]] = []
        self._threads: Counter[str] = Counter()

    def _add(self, component: str, seconds: float) -> None:
        with self._lock:
            self.cpu[component] += seconds
            self.calls[component] += 1

    @contextmanager
    def _outermost(self, component: str) -> Iterator[bool]:
        inside: set[str] = self._inside.__dict__.setdefault("components", set())
        if component in inside:
            yield False
            return
        inside.add(component)
        try:
            yield True
        finally:
            inside.discard(component)

    def _wrap(self, function: Callable[..., Any], component: str) -> Callable[..., Any]:
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self._outermost(component) as outermost:
                if not outermost:
                    return function(*args, **kwargs)
                started = time.thread_time()
                try:
                    return function(*args, **kwargs)
                finally:
                    self._add(component, time.thread_time() - started)
        return timed

    def _wrap_context(self, function: Callable[..., Any], component: str) -> Callable[..., Any]:
        """A context manager's CPU on entering and on leaving (not the body's)."""
        @contextmanager
        @functools.wraps(function)
        def timed(*args: Any, **kwargs: Any) -> Iterator[Any]:
            started = time.thread_time()
            manager = function(*args, **kwargs)
            value = manager.__enter__()
            self._add(component, time.thread_time() - started)
            try:
                yield value
            finally:
                started = time.thread_time()
                manager.__exit__(*sys.exc_info())
                self._add(component, time.thread_time() - started)
        return timed

    def install(self) -> None:
        for module_name, owner_name, name, component in COMPONENTS:
            module = importlib.import_module(module_name)
            owner = getattr(module, owner_name) if owner_name else module
            original = getattr(owner, name)
            context = owner_name == "ResourceLocks" and name == "hold"
            setattr(owner, name, (self._wrap_context if context else self._wrap)(original, component))
            self._restore.append((owner, name, original))

    def uninstall(self) -> None:
        for owner, name, original in reversed(self._restore):
            setattr(owner, name, original)

    def phase(self, name: str) -> None:
        self.phases.append((name, time.thread_time()))

    def read_threads(self) -> None:
        """CPU of the threads alive now (paramiko's reader threads, until the connections close)."""
        for thread in threading.enumerate():
            if thread is threading.main_thread() or thread.native_id is None:
                continue
            try:
                fields = open(f"/proc/self/task/{thread.native_id}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            self._threads[type(thread).__name__] += (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def lines(self) -> list[str]:
        lines = [f"CPU process total {time.process_time():.2f} s"]
        lines += [f"CPU {name:55s} {seconds:7.2f} s  {self.calls[name]:6d} calls" for name, seconds in self.cpu.most_common()]
        lines += [f"CPU threads alive at the end ({kind}) {seconds:7.2f} s" for kind, seconds in self._threads.most_common()]
        lines += [f"CPU main thread, {first} -> {then}: {end - start:.2f} s"
                  for (first, start), (then, end) in zip(self.phases, self.phases[1:])]
        return lines


class CollectorClock:
    """The cycle collector's CPU (``gc.callbacks``, the thread that collects), by generation and by phase of the run.
    Its lines are printed at the process's exit, after pytest's own last collections."""

    def __init__(self) -> None:
        self.phase = "start-up and collection"
        self.cpu: Counter[tuple[str, int]] = Counter()
        self.count: Counter[tuple[str, int]] = Counter()
        self._started: dict[int, float] = {}

    def callback(self, stage: str, info: dict[str, int]) -> None:
        thread = threading.get_ident()
        if stage == "start":
            self._started[thread] = time.thread_time()
            return
        started = self._started.pop(thread, None)
        if started is not None:
            key = (self.phase, info["generation"])
            self.cpu[key] += time.thread_time() - started
            self.count[key] += 1

    def lines(self) -> list[str]:
        return [f"CPU cycle collector, generation {generation}, {phase}: {seconds:.2f} s ({self.count[(phase, generation)]} collections)"
                for (phase, generation), seconds in self.cpu.items()]

    def print_lines(self) -> None:
        gc.callbacks.remove(self.callback)
        sys.stderr.write("\n".join(self.lines()) + "\n")


class Plugin:
    """The pytest hooks: phases of the main thread, the threads at the end, the lines printed."""

    def __init__(self, clock: CpuByComponent, collector: CollectorClock) -> None:
        self.clock = clock
        self.collector = collector

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self) -> None:
        self.clock.phase("the items begin")
        self.collector.phase = "the items"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self) -> None:
        self.clock.phase("the items end")
        self.clock.read_threads()
        self.collector.phase = "the end of the session"

    @pytest.hookimpl(hookwrapper=True)
    def pytest_terminal_summary(self) -> Iterator[None]:
        self.clock.phase("the terminal summary begins")
        yield
        self.clock.phase("the terminal summary ends")

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        self.collector.phase = "pytest's last collections"
        self.clock.uninstall()
        sys.stderr.write("\n".join(self.clock.lines()) + "\n")


def pytest_configure(config: pytest.Config) -> None:
    clock, collector = CpuByComponent(), CollectorClock()
    clock.install()
    gc.callbacks.append(collector.callback)
    atexit.register(collector.print_lines)
    config.pluginmanager.register(Plugin(clock, collector), "gpufabric-cpu-by-component")
