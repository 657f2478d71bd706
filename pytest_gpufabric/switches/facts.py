"""What the switch checks judge, the same for every switch OS (each OS's parsers fill these)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class EcnQueue:
    """ECN marking (WRED with ECN) on one egress queue; thresholds in bytes, probability in percent."""

    queue: int
    ecn: bool
    min_threshold_bytes: int | None = None
    max_threshold_bytes: int | None = None
    max_mark_probability: int | None = None


@dataclass(frozen=True)
class PortConfig:
    """The configured QoS and link settings of one port (None: the configuration does not say)."""

    name: str
    pfc_enabled: bool = False
    no_drop_priorities: frozenset[int] = frozenset()
    ecn_queues: tuple[EcnQueue, ...] = ()
    dscp_trusted: bool = False
    dscp_to_tc: dict[int, int] = field(default_factory=dict)  # the classification this port uses
    mtu: int | None = None
    speed: str | None = None
    fec: str | None = None
    link_pause: str | None = None  # "off", "on", or how the OS shows it

    def ecn_on(self, queue: int) -> EcnQueue | None:
        """The ECN setting of ``queue``, or None when the queue marks nothing."""
        return next((q for q in self.ecn_queues if q.queue == queue and q.ecn), None)


@dataclass(frozen=True)
class Watchdog:
    """The PFC watchdog as configured: action and times in milliseconds (None: not configured)."""

    enabled: bool
    action: str | None = None
    timeout_ms: float | None = None
    recovery_ms: float | None = None
    polling_ms: float | None = None


@dataclass(frozen=True)
class SwitchConfig:
    """A switch's configuration as the checks see it: ports by name, and the PFC watchdog."""

    ports: dict[str, PortConfig]
    watchdog: Watchdog | None = None

    def port(self, name: str) -> PortConfig | None:
        return self.ports.get(name)


@dataclass(frozen=True)
class PortStatus:
    """Operational state of one port: up or not, its speed in Gb/s and MTU where the output shows them."""

    name: str
    oper_up: bool
    speed_gbps: float | None = None
    mtu: int | None = None
    fec: str | None = None


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
