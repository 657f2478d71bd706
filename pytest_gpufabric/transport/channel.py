"""One command on its own SSH session channel of an open paramiko transport, read without polling threads.

fabric's ``Connection.run`` starts reader threads and a 10 ms polling loop for every command; a sweep runs
dozens of commands at once for seconds each, so the transport reads each channel here instead: it waits on the
channel (stdout and stderr data, end of output, exit status) and reads both streams as they come.
"""

from __future__ import annotations

import select
import time
from dataclasses import dataclass

import paramiko

CHUNK = 65536


@dataclass(frozen=True)
class ChannelResult:
    """What a command printed and its exit status: None when it did not end in time, -1 when the channel
    closed without one (sshd or the link gone)."""

    stdout: str
    stderr: str
    exit_code: int | None


def _decode(data: bytearray) -> str:
    return data.decode("utf-8", errors="replace")


def _drain(channel: paramiko.Channel, stdout: bytearray, stderr: bytearray) -> bool:
    """Read what has arrived on both streams; whether anything had."""
    got = False
    while channel.recv_ready():
        stdout += channel.recv(CHUNK)
        got = True
    while channel.recv_stderr_ready():
        stderr += channel.recv_stderr(CHUNK)
        got = True
    return got


def run_on_channel(transport: paramiko.Transport, command: str, wait_s: float) -> ChannelResult:
    """Run ``command`` (no pty, no stdin) and wait at most ``wait_s`` for its output and exit status."""
    deadline = time.monotonic() + wait_s
    channel = transport.open_session(timeout=wait_s)
    stdout, stderr = bytearray(), bytearray()
    try:
        channel.exec_command(command)
        channel.shutdown_write()
        ready = select.poll()  # not select(): a controller of 1,024 nodes has file descriptors above 1,023
        ready.register(channel.fileno(), select.POLLIN)
        while not (channel.eof_received or channel.closed):
            if _drain(channel, stdout, stderr):
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return ChannelResult(_decode(stdout), _decode(stderr), None)
            ready.poll(remaining * 1000)  # the channel's pipe: data or end of output
        _drain(channel, stdout, stderr)
        if not channel.status_event.wait(max(0.0, deadline - time.monotonic())):
            return ChannelResult(_decode(stdout), _decode(stderr), None)
        _drain(channel, stdout, stderr)
        return ChannelResult(_decode(stdout), _decode(stderr), channel.recv_exit_status())
    finally:
        channel.close()
