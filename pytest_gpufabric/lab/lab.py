"""``Lab``: N node namespaces with K backend rails behind a layer-3 leaf namespace, each node with its
own sshd on a management network reachable from the root namespace.

    with Lab(nodes=4, rails=2) as lab:
        site = lab.write_inventory(tmp_path / "site.yaml")
        lab.faults.mtu(node=1, rail=0, mtu=1500)
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from pytest_gpufabric.errors import UsageError
from pytest_gpufabric.lab.errors import LabError
from pytest_gpufabric.lab.faults import Faults
from pytest_gpufabric.lab.guard import TeardownGuard
from pytest_gpufabric.lab.inventory_file import site_document, write_site_yaml
from pytest_gpufabric.lab.iproute import add_namespace, ip, ip_batch, run, sysctl
from pytest_gpufabric.lab.mgmt_subnet import (
    allocation_lock,
    choose_free_subnet,
    routes_in_use,
)
from pytest_gpufabric.lab.nodes import NodeRef
from pytest_gpufabric.lab.preflight import check_can_create_namespaces, ensure_tools
from pytest_gpufabric.lab.registry import claim_lab_dir
from pytest_gpufabric.lab.sshd import (
    SSH_PORT,
    SshdFiles,
    SshdProcess,
    generate_key,
    public_key_line,
)
from pytest_gpufabric.lab.sweep import remove_lab
from pytest_gpufabric.lab.topology import (
    BACKEND_MTU,
    LEAF_HOST,
    LabPlan,
    NodePlan,
    new_lab_id,
    plan_lab,
)

if TYPE_CHECKING:
    import fabric
    import paramiko
    from typing_extensions import Self

SSH_CONNECT_TIMEOUT_S = 10.0


class Lab:
    """A lab of ``nodes`` nodes and ``rails`` rails; built by ``up()`` / ``__enter__``, removed by
    ``down()`` / ``__exit__`` (also at interpreter exit and on SIGTERM/SIGHUP)."""

    def __init__(
        self, nodes: int = 4, rails: int = 2, *, installer: Path | None = None
    ) -> None:
        if not 1 <= nodes or not 1 <= rails:
            raise UsageError(
                f"a lab needs at least one node and one rail (got nodes={nodes}, rails={rails})"
            )
        self.node_count = nodes
        self.rail_count = rails
        self.lab_id = new_lab_id()
        self.faults = Faults(self)
        self.build_s: float | None = None
        self.teardown_s: float | None = None
        self._installer = installer
        self._plan: LabPlan | None = None
        self._dir: Path | None = None
        self._sshds: dict[str, SshdProcess] = {}
        self._guard = TeardownGuard(self._teardown_quietly)

    # ----------------------------------------------------------------- what the lab is

    @property
    def plan(self) -> LabPlan:
        if self._plan is None:
            raise LabError("the lab is not up")
        return self._plan

    @property
    def nodes(self) -> tuple[NodePlan, ...]:
        return self.plan.nodes

    @property
    def dir(self) -> Path:
        """The lab's private directory (keys, sshd files, logs)."""
        if self._dir is None:
            raise LabError("the lab is not up")
        return self._dir

    @property
    def ssh_key(self) -> Path:
        """Private key accepted by every node's sshd (user root)."""
        return self.dir / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        """known_hosts holding every node's real host key, by management address."""
        return self.dir / "known_hosts"

    def node(self, ref: NodeRef) -> NodePlan:
        nodes = self.nodes
        if isinstance(ref, int):
            if not 0 <= ref < len(nodes):
                raise UsageError(f"node index {ref} out of range 0..{len(nodes) - 1}")
            return nodes[ref]
        for plan in nodes:
            if plan.name == ref:
                return plan
        raise UsageError(f"no node named {ref!r} (nodes: {[n.name for n in nodes]})")

    def sshd(self, ref: NodeRef) -> SshdProcess:
        return self._sshds[self.node(ref).name]

    # ----------------------------------------------------------------- life cycle

    def __enter__(self) -> Self:
        return self.up()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.down()

    def up(self) -> Self:
        """Build the lab; on any failure, remove what was built and re-raise."""
        if self._dir is not None:
            raise LabError(f"lab {self.lab_id} is already up")
        started = time.monotonic()
        check_can_create_namespaces()
        ensure_tools(self._installer)
        self._dir = claim_lab_dir(self.lab_id)
        self._guard.arm()
        try:
            self._build()
        except BaseException:
            self.down()
            raise
        self.build_s = time.monotonic() - started
        return self

    def down(self) -> None:
        """Remove everything of the lab: sshd processes (by PID), namespaces, root veth, directory."""
        if self._dir is None:
            return
        started = time.monotonic()
        self._guard.disarm()
        try:
            for sshd in self._sshds.values():
                sshd.kill(sessions=True)
            remove_lab(self.lab_id)
        finally:
            self._sshds.clear()
            self._dir = None
            self.teardown_s = time.monotonic() - started

    def _teardown_quietly(self) -> None:
        try:
            self.down()
        except Exception as exc:  # noqa: BLE001 - at exit/signal time there is nobody left to raise to
            print(f"gpufabric lab {self.lab_id}: teardown failed: {exc}")

    def _build(self) -> None:
        generate_key(self.ssh_key, f"gpufabric-lab-{self.lab_id}")
        authorized = self.dir / "authorized_keys"
        authorized.write_text(public_key_line(self.ssh_key) + "\n")
        with allocation_lock():
            self._plan = plan_lab(
                self.lab_id,
                self.node_count,
                self.rail_count,
                choose_free_subnet(routes_in_use()),
            )
            self._build_management_uplink(self.plan)
        plan = self.plan
        add_namespace(plan.leaf_namespace)
        for node in plan.nodes:
            add_namespace(node.namespace)
        self._build_leaf(plan)
        self._build_management_ports(plan)
        for node in plan.nodes:
            self._build_node(node)
        self._start_sshds(plan, authorized)

    def _build_management_uplink(self, plan: LabPlan) -> None:
        """The management bridge, and the one veth the lab puts in the root namespace."""
        add_namespace(plan.mgmt_namespace)
        ip_batch(
            [
                f"link add {plan.mgmt_bridge} type bridge",
                f"link set {plan.mgmt_bridge} up",
            ],
            netns=plan.mgmt_namespace,
        )
        ip_batch(
            [
                f"link add {plan.root_veth} type veth peer name {plan.mgmt_uplink} netns {plan.mgmt_namespace}",
                f"addr add {plan.mgmt_root_ip} dev {plan.root_veth}",
                f"link set {plan.root_veth} up",
            ]
        )
        ip(
            "link",
            "set",
            plan.mgmt_uplink,
            "master",
            plan.mgmt_bridge,
            "up",
            netns=plan.mgmt_namespace,
        )

    def _build_leaf(self, plan: LabPlan) -> None:
        """One bridge per rail with the gateway address (.254): inter-VLAN routing of a layer-3 leaf."""
        sysctl(plan.leaf_namespace, "net.ipv4.ip_forward", "1")
        lines: list[str] = []
        for bridge, subnet in zip(plan.rail_bridges, plan.rail_subnets):
            lines += [
                f"link add {bridge} mtu {BACKEND_MTU} type bridge",
                f"addr add {subnet[LEAF_HOST]}/{subnet.prefixlen} dev {bridge}",
                f"link set {bridge} up",
            ]
        for node in plan.nodes:
            for nic in node.nics:
                lines += [
                    (
                        f"link add {nic.leaf_port} mtu {BACKEND_MTU} type veth"
                        f" peer name {nic.netdev} netns {node.namespace} mtu {BACKEND_MTU}"
                    ),
                    f"link set {nic.leaf_port} master {plan.rail_bridges[nic.rail]} up",
                ]
        ip_batch(lines, netns=plan.leaf_namespace)

    def _build_management_ports(self, plan: LabPlan) -> None:
        lines: list[str] = []
        for node in plan.nodes:
            lines += [
                f"link add {node.mgmt_port} type veth peer name {node.mgmt_netdev} netns {node.namespace}",
                f"link set {node.mgmt_port} master {plan.mgmt_bridge} up",
            ]
        ip_batch(lines, netns=plan.mgmt_namespace)

    def _build_node(self, node: NodePlan) -> None:
        """Addresses, and per-NIC source routing as S0 2.4.1: ``from <ip> table 10x``, default via .254."""
        lines = [
            f"addr add {node.mgmt_ip}/{self.plan.mgmt_subnet.prefixlen} dev {node.mgmt_netdev}",
            f"link set {node.mgmt_netdev} up",
        ]
        for nic in node.nics:
            lines += [
                f"addr add {nic.ipv4} dev {nic.netdev}",
                f"link set {nic.netdev} up",
                f"route add default via {nic.gateway} dev {nic.netdev} table {nic.route_table}",
                f"rule add from {nic.ipv4.ip} table {nic.route_table}",
            ]
        ip_batch(lines, netns=node.namespace)

    def _start_sshds(self, plan: LabPlan, authorized: Path) -> None:
        known: list[str] = []
        for node in plan.nodes:
            node_dir = self.dir / node.name
            node_dir.mkdir(mode=0o700)
            files = SshdFiles.in_dir(node_dir, authorized)
            generate_key(files.host_key, f"{node.name} host key")
            sshd = SshdProcess(node.namespace, node.name, node.mgmt_ip, files)
            sshd.write_config()
            self._sshds[node.name] = sshd
            known.append(f"{node.mgmt_ip} {public_key_line(files.host_key)}")
        self.known_hosts.write_text("\n".join(known) + "\n")
        for sshd in self._sshds.values():
            self._give_ssh_client(sshd.files.home)
            sshd.start()

    def _give_ssh_client(self, home: Path) -> None:
        """The lab's key and known_hosts in a node's ~/.ssh: nodes reach one another over the management
        network as MPI launches do (passwordless, host keys checked)."""
        dot_ssh = home / ".ssh"
        dot_ssh.mkdir(mode=0o700, exist_ok=True)
        shutil.copyfile(self.ssh_key, dot_ssh / "id_ed25519")
        (dot_ssh / "id_ed25519").chmod(0o600)
        shutil.copyfile(self.known_hosts, dot_ssh / "known_hosts")

    # ----------------------------------------------------------------- using the lab

    def write_inventory(self, path: Path, profile: str = "lab-linux") -> Path:
        """Write a site.yaml describing the lab (ssh as root with the lab's key and known_hosts)."""
        document = site_document(
            self.plan, profile=profile, ssh_key=self.ssh_key, known_hosts=self.known_hosts,
            speeds_gbps={(node.name, nic.netdev): self.link_speed_gbps(node.index, nic.netdev)
                         for node in self.nodes for nic in node.nics},
        )  # fmt: skip
        return write_site_yaml(Path(path), document)

    def link_speed_gbps(self, ref: NodeRef, netdev: str) -> int:
        """The speed the kernel reports for ``netdev`` (/sys/class/net/NETDEV/speed, Mb/s) in Gb/s."""
        node = self.node(ref)
        done = self.exec_in(node.index, ["cat", f"/sys/class/net/{netdev}/speed"])
        text = done.stdout.strip()
        if done.returncode != 0 or not text.isdigit() or int(text) < 1000:
            raise LabError(
                f"{node.name}/{netdev}: no usable link speed in sysfs ({text or done.stderr.strip()!r})"
            )
        return int(text) // 1000

    def ssh_argv(self, ref: NodeRef, command: str) -> list[str]:
        """An OpenSSH command line running ``command`` on the node, with strict host key checking."""
        ssh = shutil.which("ssh") or "/usr/bin/ssh"
        return [
            ssh, "-F", "/dev/null", "-i", str(self.ssh_key),
            "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
            "-o", f"UserKnownHostsFile={self.known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null",
            "-o", "StrictHostKeyChecking=yes", "-o", f"ConnectTimeout={int(SSH_CONNECT_TIMEOUT_S)}",
            "-p", str(SSH_PORT), f"root@{self.node(ref).mgmt_ip}", command,
        ]  # fmt: skip

    def ssh(
        self, ref: NodeRef, command: str, timeout_s: float = 30.0
    ) -> subprocess.CompletedProcess[str]:
        """Run ``command`` on the node through /usr/bin/ssh (exit code 255: ssh itself failed)."""
        return run(self.ssh_argv(ref, command), timeout_s=timeout_s, check=False)

    def exec_in(
        self, ref: NodeRef, argv: Sequence[str], timeout_s: float = 30.0
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` directly inside the node's namespace (no ssh), e.g. to observe a fault."""
        return run(
            ["ip", "netns", "exec", self.node(ref).namespace, *argv],
            timeout_s=timeout_s,
            check=False,
        )

    def paramiko_client(self, ref: NodeRef) -> paramiko.SSHClient:
        """A connected paramiko client: lab key only, host key checked against the lab's known_hosts."""
        import paramiko

        client = paramiko.SSHClient()
        client.load_host_keys(str(self.known_hosts))
        client.set_missing_host_key_policy(paramiko.RejectPolicy())
        client.connect(
            str(self.node(ref).mgmt_ip), port=SSH_PORT, username="root", key_filename=str(self.ssh_key),
            look_for_keys=False, allow_agent=False, timeout=SSH_CONNECT_TIMEOUT_S,
            banner_timeout=SSH_CONNECT_TIMEOUT_S, auth_timeout=SSH_CONNECT_TIMEOUT_S,
        )  # fmt: skip
        return client

    def fabric_connection(self, ref: NodeRef) -> fabric.Connection:
        """A fabric Connection with the same strict host key checking as ``paramiko_client``."""
        import fabric
        import paramiko

        connection = fabric.Connection(
            str(self.node(ref).mgmt_ip), user="root", port=SSH_PORT,
            config=fabric.Config(overrides={"load_ssh_configs": False}),
            connect_timeout=int(SSH_CONNECT_TIMEOUT_S),
            connect_kwargs={"key_filename": str(self.ssh_key), "look_for_keys": False, "allow_agent": False},
        )  # fmt: skip
        connection.client.load_host_keys(str(self.known_hosts))
        connection.client.set_missing_host_key_policy(paramiko.RejectPolicy())
        return connection
