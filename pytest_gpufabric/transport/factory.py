"""Build the transport a run uses from the inventory and the options (live, recorded or replayed)."""

from __future__ import annotations

from collections.abc import Callable

from pytest_gpufabric.inventory import Inventory, Node, Switch
from pytest_gpufabric.options import FabricOptions
from pytest_gpufabric.recording import RecordingStore, RecordingTransport, RecordMode, Scrubber
from pytest_gpufabric.transport.base import Transport
from pytest_gpufabric.transport.local import LocalTransport
from pytest_gpufabric.transport.routed import RoutedTransport
from pytest_gpufabric.transport.ssh import SshEndpoint, SshTransport
from pytest_gpufabric.transport.switch_guard import ReadOnlySwitches


def ssh_endpoint(machine: Node | Switch, verify_host_keys: bool) -> SshEndpoint:
    """How to reach a node (commands bounded by `timeout` on the node) or a switch (its CLI, as is)."""
    is_switch = isinstance(machine, Switch)
    return SshEndpoint(
        address=machine.address,
        user=machine.ssh.user,
        port=machine.ssh.port,
        key=machine.ssh.key,
        known_hosts=machine.ssh.known_hosts,
        connect_timeout_s=machine.ssh.connect_timeout_s,
        sudo=machine.ssh.sudo and not is_switch,
        verify_host_key=verify_host_keys,
        remote_shell=not is_switch,
    )


def live_transport(inventory: Inventory, verify_host_keys: bool) -> Transport:
    """The transport that reaches the real machines: a local subprocess or SSH (switches: always SSH)."""
    switches = {s.name: ssh_endpoint(s, verify_host_keys) for s in inventory.switches}
    if inventory.transport == "local":
        local = LocalTransport(sudo=any(node.ssh.sudo for node in inventory.nodes))
        return RoutedTransport(switches, SshTransport(switches), local) if switches else local
    nodes = {node.name: ssh_endpoint(node, verify_host_keys) for node in inventory.nodes}
    return SshTransport({**nodes, **switches})


def transport_factory(
    inventory: Inventory, options: FabricOptions, run_id: str, scrubber: Scrubber
) -> Callable[[], Transport]:
    """A zero-argument factory, called lazily in the process that first runs a command; recordings are
    scrubbed with ``scrubber`` (the run's one scrubber). Whatever the mode, only read-only command forms
    reach (or are looked up for) a switch."""
    switch_os = {s.name: s.os for s in inventory.switches}

    def make() -> Transport:
        if options.recording_dir is None:
            return ReadOnlySwitches(live_transport(inventory, options.verify_host_keys), switch_os)
        mode = RecordMode(options.record_mode)
        store = RecordingStore(options.recording_dir, scrubber, run_id=run_id)
        live = None if mode is RecordMode.NONE else live_transport(inventory, options.verify_host_keys)
        return ReadOnlySwitches(RecordingTransport(store, mode, live), switch_os)

    return make
