"""What the switch checks judge, the same for every switch OS (each OS's parsers fill these)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Watchdog:
    """The PFC watchdog as configured: action and times in milliseconds (None: not configured)."""

    enabled: bool
    action: str | None = None
    timeout_ms: float | None = None
    recovery_ms: float | None = None
    polling_ms: float | None = None


@dataclass(frozen=True)
class EcnQueue:
    """ECN marking (WRED with ECN) on one egress queue: minimum and maximum thresholds in ``unit`` (``bytes``
    where the configuration's unit converts to bytes; ``segments``, ``milliseconds`` or ``percent`` of the
    buffer as the OS configures them otherwise), the marking probability at the maximum in percent."""

    queue: int
    ecn: bool
    min_threshold: float | None = None
    max_threshold: float | None = None
    max_mark_probability: int | None = None
    unit: str = "bytes"


@dataclass(frozen=True)
class PortConfig:
    """The configured QoS and link settings of one port. None: not known (the configuration does not say and no
    documented default applies, or the line that says it was not understood; ``sources`` names the sections
    whose unread lines could hold it).

    Traffic classes are the OS's own (EOS and SONiC traffic classes, Junos forwarding-class queues):
    ``dscp_to_tc`` maps the DSCP values this port trusts to them ({}: DSCP not trusted); ``tc_priorities`` gives
    the PFC priority that pauses each class (None: class N is priority N); ``priority_queues`` the egress queue
    that carries each PFC priority's class (None: queue N)."""

    name: str
    pfc_enabled: bool | None = None
    no_drop_priorities: frozenset[int] | None = None
    ecn_queues: tuple[EcnQueue, ...] | None = None
    dscp_trusted: bool | None = None
    dscp_to_tc: dict[int, int] | None = None
    mtu: int | None = None
    speed: str | None = None
    fec: str | None = None
    link_pause: str | None = None  # "off", or how the OS shows what is on
    tc_priorities: dict[int, int] | None = None
    priority_queues: dict[int, int] | None = None
    routed: bool | None = None
    watchdog: Watchdog | None = None  # the port's own PFC watchdog, where the OS configures one per port
    sources: tuple[str, ...] = ()

    def ecn_on(self, queue: int) -> EcnQueue | None:
        """The ECN setting of ``queue``, or None when the queue marks nothing (or it is not known: ``ecn_queues``)."""
        return next((q for q in self.ecn_queues or () if q.queue == queue and q.ecn), None)

    def queue_of(self, priority: int) -> int | None:
        """The egress queue that carries the traffic paused by PFC ``priority`` (None: no class has it)."""
        if self.priority_queues is None:
            return priority
        return self.priority_queues.get(priority)

    def priority_of(self, traffic_class: int) -> int | None:
        """The PFC priority that pauses ``traffic_class`` (None: none does)."""
        if self.tc_priorities is None:
            return traffic_class
        return self.tc_priorities.get(traffic_class)


@dataclass(frozen=True)
class SwitchConfig:
    """A switch's configuration as the checks see it: ports by name, and the PFC watchdog."""

    ports: dict[str, PortConfig]
    watchdog: Watchdog | None = None

    def port(self, name: str) -> PortConfig | None:
        return find_port(self.ports, name)


def port_key(name: str) -> str:
    """How switch CLIs let one port be named: ``Ethernet3/1/1``, ``Et3/1/1`` and ``ethernet3/1/1`` alike."""
    return re.sub(r"^(ethernet|eth|et)(?=[\d-])", "et", name.strip().lower())


def find_port(ports: Mapping[str, T], name: str) -> T | None:
    """The entry of port ``name`` (the inventory's spelling) in a table keyed by the switch's spelling."""
    if name in ports:
        return ports[name]
    wanted = port_key(name)
    return next((value for key, value in ports.items() if port_key(key) == wanted), None)


@dataclass(frozen=True)
class PortStatus:
    """Operational state of one port: up or not, its speed in Gb/s and MTU where the output shows them."""

    name: str
    oper_up: bool
    speed_gbps: float | None = None
    mtu: int | None = None
    fec: str | None = None
    link_pause: str | None = None  # "off", or what is on, where the output shows the operational flow control


@dataclass(frozen=True)
class QueueWatchdog:
    """The PFC watchdog's statistics of one queue of a port (None: not shown by the output)."""

    status: str | None = None  # operational, stormed, N/A
    storms_detected: int | None = None
    storms_restored: int | None = None
    tx_ok: int | None = None
    tx_drop: int | None = None
    rx_ok: int | None = None
    rx_drop: int | None = None


@dataclass(frozen=True)
class PortCounters:
    """The counters SW-007 compares before and after the traffic tests (None or empty: not shown).

    PFC frames per priority where the output shows them (``pfc_rx_priorities``), else the port's total
    (``pfc_rx``); drops per egress queue by the OS's queue label (``UC3``/``MC8`` on SONiC, ``3`` elsewhere);
    the PFC watchdog per queue."""

    name: str
    pfc_rx: int | None = None
    pfc_tx: int | None = None
    in_discards: int | None = None
    out_discards: int | None = None
    pfc_rx_priorities: dict[int, int] = field(default_factory=dict)
    pfc_tx_priorities: dict[int, int] = field(default_factory=dict)
    queue_drops: dict[str, int] = field(default_factory=dict)
    watchdog: dict[str, QueueWatchdog] = field(default_factory=dict)

    @property
    def watchdog_storms(self) -> int | None:
        """Storms the watchdog detected on all queues of the port (None: no watchdog statistics)."""
        counts = [q.storms_detected for q in self.watchdog.values() if q.storms_detected is not None]
        return sum(counts) if counts else None

    def as_plain(self) -> dict[str, Any]:
        """JSON-ready data (the SW-007 snapshot files); ``from_plain`` reads it back."""
        data = asdict(self)
        for key in ("pfc_rx_priorities", "pfc_tx_priorities"):
            data[key] = {str(k): v for k, v in data[key].items()}
        return data

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> PortCounters:
        values = dict(data)
        for key in ("pfc_rx_priorities", "pfc_tx_priorities"):
            values[key] = {int(k): v for k, v in values.get(key, {}).items()}
        values["watchdog"] = {k: QueueWatchdog(**v) for k, v in values.get("watchdog", {}).items()}
        return cls(**values)
