"""Build the transport a run uses from the inventory and the options (live, recorded or replayed)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_gpufabric.inventory import Inventory
from pytest_gpufabric.options import FabricOptions
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber
from pytest_gpufabric.transport.base import Transport
from pytest_gpufabric.transport.local import LocalTransport
from pytest_gpufabric.transport.ssh import SshEndpoint, SshTransport


def live_transport(inventory: Inventory, verify_host_keys: bool) -> Transport:
    """The transport that reaches the real nodes: a local subprocess or SSH."""
    if inventory.transport == "local":
        return LocalTransport(sudo=any(node.ssh.sudo for node in inventory.nodes))
    endpoints = {
        node.name: SshEndpoint(
            address=node.address,
            user=node.ssh.user,
            port=node.ssh.port,
            key=node.ssh.key,
            known_hosts=node.ssh.known_hosts,
            connect_timeout_s=node.ssh.connect_timeout_s,
            sudo=node.ssh.sudo,
            verify_host_key=verify_host_keys,
        )
        for node in inventory.nodes
    }
    return SshTransport(endpoints)


def transport_factory(inventory: Inventory, options: FabricOptions, run_id: str) -> Callable[[], Transport]:
    """A zero-argument factory, called lazily in the process that first runs a command."""

    def make() -> Transport:
        if options.recording_dir is None:
            return live_transport(inventory, options.verify_host_keys)
        mode = RecordMode(options.record_mode)
        scrubber = Scrubber(tuple(inventory.scrub_patterns) + options.scrub)
        store = RecordingStore(options.recording_dir, scrubber, run_id=run_id)
        live = None if mode is RecordMode.NONE else live_transport(inventory, options.verify_host_keys)
        return RecordingTransport(store, mode, live)

    return make
