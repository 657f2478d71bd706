"""What the switch checks judge, the same for every switch OS (each OS's parsers fill these)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
class PortCounters:
    """The counters SW-007 compares before and after the traffic tests (None: not shown by this output)."""

    name: str
    pfc_rx: int | None = None
    pfc_tx: int | None = None
    in_discards: int | None = None
    out_discards: int | None = None
    watchdog_storms: int | None = None
