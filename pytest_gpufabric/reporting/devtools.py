"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``): open a page
offline, time its loading (wall clock, and the CPU time of the browser's processes: what it costs on an idle
machine), read where elements are laid out, and take a screenshot of the first screen.

The protocol runs on two pipes the browser gets as its file descriptors 3 (commands) and 4 (answers and
events), one JSON message per NUL-terminated line; no network port is opened. The page's own content runs
no script (the reports have none); the measurements are evaluated by the protocol in the page's context.
Everything is bounded in time; the browser's process group is killed when the session ends.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_gpufabric.readable import readable_within
from pytest_gpufabric.reporting.render import CHROMIUM_FLAGS, ReportToolError, find_chromium, kill_group

COMMAND_FD, ANSWER_FD = 3, 4
TIMING = """JSON.stringify({timing: performance.timing.toJSON(),
  paint: performance.getEntriesByType('paint').map(e => [e.name, e.startTime])})"""
BOXES = """JSON.stringify(Array.from(document.querySelectorAll(%s)).map(e => {
  const r = e.getBoundingClientRect();
  return {x: r.left, y: r.top, width: r.width, height: r.height,
          data: Object.fromEntries(Object.entries(e.dataset))};
}))"""


@dataclass(frozen=True)
class Box:
    """Where an element is laid out in the viewport (CSS pixels) and its data- attributes."""

    x: float
    y: float
    width: float
    height: float
    data: dict[str, str]

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class PageLoad:
    """How long a page took to open: from the navigation to its load event (wall clock, measured here), the CPU
    seconds the browser's processes spent meanwhile, and the page's own timings in milliseconds since its
    navigation started (first contentful paint, DOM ready, load)."""

    seconds: float
    first_contentful_paint_ms: float | None
    dom_content_loaded_ms: float
    load_event_ms: float
    cpu_seconds: float = 0.0


def group_cpu_seconds(session: int) -> float:
    """User and system CPU seconds of the live processes of a session (``/proc/PID/stat``: the browser started
    in a session of its own, so every Chromium process of it)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        if int(fields[3]) == session:  # fields after the command: state, ppid, pgrp, session, ...; utime, stime
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class Browser:
    """One headless Chromium and one page, spoken to over the DevTools pipe."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, answers: int, timeout_s: float) -> None:
        self.process, self._commands, self._answers, self.timeout_s = process, commands, answers, timeout_s
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if not readable_within(self._answers, left):
                raise ReportToolError(f"Chromium did not answer over the DevTools pipe within {self.timeout_s:g} s")
            chunk = os.read(self._answers, 1 << 20)
            if not chunk:
                raise ReportToolError("Chromium closed the DevTools pipe (it exited)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: bool = False) -> dict[str, Any]:
        """Send one command and wait for its answer (events met meanwhile are kept for ``wait_for``)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise ReportToolError(f"Chromium refused {method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            self._events.append(answer)

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            for index, message in enumerate(self._events):
                if message.get("method") == event:
                    return self._events.pop(index)
            self._events.append(self._message(deadline))

    def _navigate(self, address: str) -> None:
        self._events.clear()
        self.call("Page.navigate", {"url": address}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        return json.loads(result["result"]["value"])

    def open(self, page: Path, fragment: str | None = None, window: tuple[int, int] = (1280, 900)) -> PageLoad:
        """Open ``page`` (``#fragment``) in a window of ``window`` CSS pixels and wait for its load event."""
        width, height = window
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=True)
        self._navigate("about:blank")  # a page opened before would only scroll to the fragment: no load to time
        address = page.resolve().as_uri() + (f"#{fragment}" if fragment else "")
        started, started_cpu = time.monotonic(), group_cpu_seconds(self.process.pid)
        self._navigate(address)
        seconds, cpu_seconds = time.monotonic() - started, group_cpu_seconds(self.process.pid) - started_cpu
        found = self.evaluate(TIMING)
        timing, paint = found["timing"], dict(found["paint"])
        start = timing["navigationStart"]
        return PageLoad(seconds, paint.get("first-contentful-paint"), timing["domContentLoadedEventEnd"] - start,
                        timing["loadEventEnd"] - start, cpu_seconds)

    def boxes(self, selector: str) -> list[Box]:
        """Where the elements matching a CSS selector are laid out in the viewport."""
        found = self.evaluate(BOXES % json.dumps(selector))
        return [Box(b["x"], b["y"], b["width"], b["height"], {str(k): str(v) for k, v in b["data"].items()}) for b in found]

    def screenshot(self) -> bytes:
        """A PNG of what the window shows (the first screen at the current scroll position)."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])


@contextmanager
def browser(timeout_s: float = 60.0) -> Iterator[Browser]:
    """A headless Chromium for the duration of the block (offline flags of ``render``); its processes are
    killed when the block ends."""
    chromium = find_chromium()
    commands_read, commands_write = os.pipe()
    answers_read, answers_write = os.pipe()

    def give_pipes() -> None:  # in the child: the pipes as the descriptors Chromium expects
        commands, answers = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands_read, answers_write))
        os.dup2(commands, COMMAND_FD)
        os.dup2(answers, ANSWER_FD)

    with tempfile.TemporaryDirectory(prefix="gpufabric-devtools-") as profile:
        process = subprocess.Popen([str(chromium), *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}",
                                    "about:blank"], pass_fds=(COMMAND_FD, ANSWER_FD), preexec_fn=give_pipes,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
        os.close(commands_read)
        os.close(answers_write)
        try:
            yield Browser(process, commands_write, answers_read, timeout_s)
        finally:
            os.close(commands_write)
            os.close(answers_read)
            kill_group(process.pid)
            process.wait()
