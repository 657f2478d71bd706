"""The transport discovery reads through: SSH or local, live, recorded or replayed (as the suite's)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from pytest_gpufabric.discovery.targets import Target
from pytest_gpufabric.inventory import SshConfig
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber
from pytest_gpufabric.transport.base import Transport
from pytest_gpufabric.transport.local import LocalTransport

RECORDING_DESCRIPTION = "gpufabric discover: the read-only commands discovery ran on each node"


def live_transport(transport: str, targets: Sequence[Target], ssh: SshConfig) -> Transport:
    if transport == "local":
        return LocalTransport()
    from pytest_gpufabric.transport.ssh import SshEndpoint, SshTransport  # fabric is needed for SSH only

    endpoints = {
        target.name: SshEndpoint(
            address=target.address, user=ssh.user, port=ssh.port, key=ssh.key, known_hosts=ssh.known_hosts,
            connect_timeout_s=ssh.connect_timeout_s, sudo=False, verify_host_key=True,
        )  # fmt: skip
        for target in targets
    }
    return SshTransport(endpoints)


def discovery_transport(args: argparse.Namespace, targets: Sequence[Target], ssh: SshConfig) -> Transport:
    """``--replay DIR``: the recording only; ``--record DIR``: live, every output recorded; else live."""
    if args.replay:
        return RecordingTransport(RecordingStore(Path(args.replay), Scrubber()), RecordMode.NONE)
    live = live_transport(args.transport, targets, ssh)
    if not args.record:
        return live
    store = RecordingStore(Path(args.record), Scrubber(), run_id=f"discover-{time.strftime('%Y%m%dT%H%M%S')}")
    return RecordingTransport(store, RecordMode.ALL, live, description=RECORDING_DESCRIPTION)
