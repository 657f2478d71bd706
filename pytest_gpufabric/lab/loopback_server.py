"""The SSH server of the many-node loopback target: one process answering for every node name of a site.

Run by ``LoopbackTarget`` as ``python -m pytest_gpufabric.lab.loopback_server CONFIG.json``. It listens on one
port of many loopback addresses (one address per node; Linux routes all of 127.0.0.0/8 to ``lo``), accepts only
the target's client key, and runs each command it is given with a real ``bash -c`` in the node's own home
directory (``HOME``, ``GPUFABRIC_NODE``, and its node leases and PID files below it: ``GPUFABRIC_NODE_STATE``), with the target's stand-ins first on ``PATH``. The node is known by
the local address the connection reached. Output is forwarded as it comes, then the exit status.

An asyncssh server instead of sshd: one process and no process per connection, so 1,024 connections cost
neither 2,048 sshd processes (this machine has a PID limit of 32,768 shared with other work) nor their
memory. What it costs is its own: the benchmarks read this process's CPU apart from the controller's.

It prints ``ready <port>`` on stdout once every address listens, ``bind-failed <address>: <reason>`` and exits 3
when one cannot be bound (the target then tries other addresses), and ends on SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

from pytest_gpufabric.exclusive.leases import STATE_ENV

BIND_FAILED_EXIT = 3
CHUNK = 65536


@dataclass(frozen=True)
class ServedNode:
    """One node name the server answers for: its address, its home directory."""

    name: str
    address: str
    home: str


class _Server(asyncssh.SSHServer):
    """Public-key authentication only, against the target's authorized key (no password, no other method)."""

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False


class _IgnoredChannel:
    """Stands for a channel this server has closed already: whatever arrives for it is dropped."""

    @staticmethod
    def log_received_packet(pkttype: int, seq: int, packet: object, skip_reason: str | None = None) -> None:
        return None

    @staticmethod
    def process_packet(pkttype: int, seq: int, packet: object) -> bool:
        return True


class _ClosedChannelsIgnored(dict):  # type: ignore[type-arg]
    """asyncssh ends the whole connection on a message for a channel it has closed; paramiko may send one (a
    close crossing the server's own close), and OpenSSH's sshd ignores such a message: so does this server."""

    def __missing__(self, number: int) -> _IgnoredChannel:
        return _IgnoredChannel()


def _tolerate_closed_channels(connection: asyncssh.SSHServerConnection) -> None:
    connection._channels = _ClosedChannelsIgnored(connection._channels)  # type: ignore[attr-defined]


async def _pump(reader: asyncio.StreamReader | None, writer: Any) -> None:
    """Forward one output stream of the command to the channel as it arrives."""
    if reader is None:
        return
    while chunk := await reader.read(CHUNK):
        writer.write(chunk)
        await writer.drain()


class LoopbackServer:
    """Runs commands for the nodes of ``config`` (see the module docstring)."""

    def __init__(self, config: dict[str, Any]) -> None:
        self._port = int(config["port"])
        self._host_key = str(config["host_key"])
        self._authorized = str(config["authorized_keys"])
        self._path = str(config["path"])
        self._nodes = {node["address"]: ServedNode(**node) for node in config["nodes"]}
        self._environment = {key: os.environ[key] for key in ("LANG", "TZ") if key in os.environ}
        self._environment.update(config.get("environment", {}))

    def _node(self, process: asyncssh.SSHServerProcess[bytes]) -> ServedNode:
        return self._nodes[process.get_extra_info("sockname")[0]]

    async def _run(self, process: asyncssh.SSHServerProcess[bytes]) -> None:
        """One command of one session: ``bash -c COMMAND`` in the node's home, output forwarded, exit status."""
        node = self._node(process)
        command = process.command or "true"
        environment = {**self._environment, "HOME": node.home, "PATH": self._path, "GPUFABRIC_NODE": node.name,
                       STATE_ENV: f"{node.home}/.gpufabric-state", "USER": "root", "LOGNAME": "root", "SHELL": "/bin/bash"}
        try:
            local = await asyncio.create_subprocess_exec(
                "/bin/bash", "-c", command, cwd=node.home, env=environment, start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        except OSError as exc:
            process.stderr.write(f"loopback target: cannot run bash: {exc}\n".encode())
            process.exit(127)
            return
        await asyncio.gather(_pump(local.stdout, process.stdout), _pump(local.stderr, process.stderr))
        status = await local.wait()
        process.exit(status if status >= 0 else 128 - status)

    async def serve(self) -> None:
        """Listen on every node's address, say so, and serve until SIGTERM."""
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        listeners = []
        for address in self._nodes:
            try:
                listeners.append(await asyncssh.listen(
                    address, self._port, server_factory=_Server, server_host_keys=[self._host_key],
                    authorized_client_keys=self._authorized, process_factory=self._run, encoding=None,
                    allow_scp=False, agent_forwarding=False, x11_forwarding=False, reuse_address=True,
                    login_timeout=60, keepalive_interval=0, backlog=1024, acceptor=_tolerate_closed_channels))
            except OSError as exc:
                print(f"bind-failed {address}: {exc.strerror or exc}", flush=True)
                raise SystemExit(BIND_FAILED_EXIT) from None
        print(f"ready {self._port}", flush=True)
        await stop.wait()
        for listener in listeners:
            listener.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m pytest_gpufabric.lab.loopback_server CONFIG.json", file=sys.stderr)
        return 2
    config = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    asyncssh.set_log_level(logging.DEBUG if os.environ.get("GPUFABRIC_LOOPBACK_DEBUG") else logging.WARNING)
    asyncssh.set_debug_level(2)
    asyncio.run(LoopbackServer(config).serve())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
