"""The switch lab: one network namespace holding one sshd per switch, each on its own address, whose account
answers the switch's recorded outputs (switch_cli.py as ForceCommand). The host reaches the namespace over a
veth pair; nothing leaves the machine. Everything is removed again, processes by their PID."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from ipaddress import IPv4Address
from pathlib import Path

from pytest_gpufabric.lab.iproute import add_namespace, delete_namespace, ip, ip_batch
from pytest_gpufabric.lab.mgmt_subnet import allocation_lock, choose_free_subnet, routes_in_use
from pytest_gpufabric.lab.sshd import SshdFiles, SshdProcess, generate_key, public_key_line

SWITCH_CLI = Path(__file__).resolve().parent / "switch_cli.py"
# The sessions see the lab's own /root (lab/sshd.py), so the account runs the system interpreter (stdlib only).
SYSTEM_PYTHON = "/usr/bin/python3"


@dataclass(frozen=True)
class LabSwitch:
    """One served switch: its address in the namespace and the log of every command its account received."""

    name: str
    address: IPv4Address
    log: Path

    def received(self) -> list[dict[str, object]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]


@dataclass(frozen=True)
class SwitchLab:
    namespace: str
    client_key: Path
    known_hosts: Path
    switches: dict[str, LabSwitch]


@contextmanager
def switch_lab(directory: Path, outputs: Mapping[str, Mapping[str, str]]) -> Iterator[SwitchLab]:
    """Serve ``outputs`` (switch name -> command -> stdout) from sshd's in a fresh namespace."""
    lab_id = uuid.uuid4().hex[:6]
    namespace, host_end, ns_end = f"gfsw-{lab_id}", f"gfsw{lab_id}h", f"gfsw{lab_id}n"
    client_key = generate_key(directory / "client_key", "gpufabric-switch-lab")
    authorized = directory / "authorized_keys"
    authorized.write_text(public_key_line(client_key) + "\n")
    sshds: list[SshdProcess] = []
    with allocation_lock():
        subnet = choose_free_subnet(routes_in_use())
        add_namespace(namespace)
        try:
            ip("link", "add", host_end, "type", "veth", "peer", "name", ns_end)
        except Exception:
            delete_namespace(namespace)
            raise
    try:
        hosts = list(subnet.hosts())
        addresses = hosts[1:1 + len(outputs)]
        ip_batch([f"link set {ns_end} netns {namespace}", f"address add {hosts[0]}/{subnet.prefixlen} dev {host_end}",
                  f"link set {host_end} up"])
        ip_batch(["link set lo up", f"link set {ns_end} up",
                  *(f"address add {a}/{subnet.prefixlen} dev {ns_end}" for a in addresses)], netns=namespace)
        switches, known = {}, []
        for (name, served), address in zip(outputs.items(), addresses):
            own = directory / name
            own.mkdir()
            (own / "outputs.json").write_text(json.dumps(served), encoding="utf-8")
            files = SshdFiles.in_dir(own, authorized)
            generate_key(files.host_key, f"gpufabric-switch-lab-{name}")
            sshd = SshdProcess(namespace, name, address, files)
            sshd.write_config()
            with files.config.open("a", encoding="utf-8") as config:
                config.write(f"ForceCommand {SYSTEM_PYTHON} {SWITCH_CLI} {own / 'outputs.json'} {own / 'commands.jsonl'}\n")
            sshds.append(sshd)
            sshd.start()
            known.append(f"{address} {public_key_line(files.host_key)}")
            switches[name] = LabSwitch(name, address, own / "commands.jsonl")
        known_hosts = directory / "known_hosts"
        known_hosts.write_text("\n".join(known) + "\n")
        yield SwitchLab(namespace, client_key, known_hosts, switches)
    finally:
        for sshd in sshds:
            sshd.kill(sessions=True)
        ip("link", "delete", host_end, check=False)
        delete_namespace(namespace)
