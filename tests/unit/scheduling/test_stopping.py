"""Stop means stop in every process of a run: a stop signal sets the run's stop flag at once whatever the main thread
waits for, a worker whose controller died sets it and ends, and every process learns of it within a poll."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from pytest_gpufabric.exclusive.stop import StopFlag

REPO = Path(__file__).resolve().parents[3]
PROCESS = textwrap.dedent("""
    import os, sys, threading, time
    from pathlib import Path
    from pytest_gpufabric.exclusive.stop import StopFlag
    from pytest_gpufabric.scheduling.stopping import StopWatch, stop_on_signals
    folder, parent = Path(sys.argv[1]), int(sys.argv[2]) or None
    flag = StopFlag(folder)
    stop_on_signals(flag)
    watch = StopWatch(flag, lambda reason: (folder / "on_stop").write_text(reason), parent)
    watch.start()
    (folder / "ready").write_text(str(os.getpid()))
    held = threading.Lock()
    held.acquire()
    try:
        while not held.acquire(timeout=0.5):  # a bounded wait: the main thread takes the signal's KeyboardInterrupt
            pass
    except KeyboardInterrupt:
        (folder / "interrupted").write_text("yes")
        deadline = time.monotonic() + 60  # the process goes on, as pytest's interrupted session does (its summaries)
        while not (folder / "on_stop").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
""")


def _start(folder: Path, parent: int = 0) -> subprocess.Popen[bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([sys.executable, "-c", PROCESS, str(folder), str(parent)], cwd=REPO)


def _wait_for(path: Path, timeout_s: float = 60) -> str:
    """The text of ``path`` once it is there and written (``write_text`` creates the file before it writes)."""
    deadline = time.monotonic() + timeout_s
    while not (text := path.read_text() if path.exists() else ""):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return text


def test_a_stop_signal_sets_the_flag_at_once_and_interrupts_the_process(tmp_path: Path) -> None:
    process = _start(tmp_path)
    try:
        _wait_for(tmp_path / "ready")
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        reason = _wait_for(tmp_path / "on_stop")
        assert time.monotonic() - sent < 30 and reason == f"SIGTERM to pid {process.pid}"  # generous: a shared, loaded machine
        assert StopFlag(tmp_path).reason() == reason
    finally:
        process.kill()
        process.wait(timeout=10)


def test_a_worker_whose_controller_died_stops_the_run_and_ends(tmp_path: Path) -> None:
    controller = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    worker_script = PROCESS.replace("int(sys.argv[2]) or None", "os.getppid()")
    launcher = subprocess.Popen([sys.executable, "-c", (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {worker_script!r}, {str(tmp_path)!r}, '0'], cwd={str(REPO)!r})\n"
        "time.sleep(60)\n")])
    try:
        worker = int(_wait_for(tmp_path / "ready"))
        os.kill(launcher.pid, signal.SIGKILL)  # the worker's parent dies
        assert _wait_for(tmp_path / "on_stop") == f"the controller (pid {launcher.pid}) died"
        _wait_for(tmp_path / "interrupted")  # and the worker ends as if interrupted
    finally:
        for process in (launcher, controller):
            process.kill()
            process.wait(timeout=10)
        try:
            os.kill(worker, signal.SIGKILL)
        except (ProcessLookupError, UnboundLocalError):
            pass
