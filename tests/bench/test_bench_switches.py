"""Switch facts at scale: a 256-port leaf (256 nodes x 8 rails over 8 leaves) parsed once per process, then
looked up by each port's items. Parse time and the cached per-item cost are measured in one run (extra_info), in CPU
time of this process (wall time moved with the load of a shared machine: 15 x once where 20 x is the bound)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.checks.switches import port_config
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import SshConfig, Switch
from pytest_gpufabric.parsers.eos_config import parse_running_config
from pytest_gpufabric.parsers.junos_config import parse_configuration
from pytest_gpufabric.parsers.sonic_config_db import parse_config_db
from pytest_gpufabric.transport.base import CommandResult
from tools.demo_cluster.switches import DemoSwitch, eos, junos, sonic

PORTS = 256
EOS_PORTS = [(f"Ethernet{n + 1}/1", (f"node{n + 1:03d}", 0)) for n in range(PORTS)]
SONIC_PORTS = [(f"Ethernet{8 * n}", (f"node{n + 1:03d}", 4)) for n in range(PORTS)]
JUNOS_PORTS = [(f"et-0/0/{n + 1}:0", (f"node{n + 1:03d}", 7)) for n in range(PORTS)]
CASES = {
    "arista": ("show running-config", eos.running_config(DemoSwitch("leaf1", "arista", "10.0.0.1", (0,)), EOS_PORTS),
               parse_running_config, [p for p, _ in EOS_PORTS]),
    "sonic": ("sonic-cfggen -d --print-data", sonic.config_db(SONIC_PORTS), parse_config_db, [p for p, _ in SONIC_PORTS]),
    "juniper": ("show configuration", junos.configuration(JUNOS_PORTS), parse_configuration, [p for p, _ in JUNOS_PORTS]),
}


SW_001 = load_catalog().get("SW-001")
PROFILE = Profile("bench", "bench", {}, {}, {})


def context(output: CommandResult, parsed: dict[Any, Any]) -> CheckContext:
    return CheckContext(SW_001, "leaf1", PROFILE, lambda *_: output, parsed=parsed)


@pytest.mark.parametrize("switch_os", sorted(CASES))
def test_a_256_port_switch_is_parsed_once_per_process(switch_os: str, benchmark: Any) -> None:
    command, text, parse, ports = CASES[switch_os]
    config = benchmark(parse, text).facts
    assert set(ports) <= set(config.ports) and all(config.ports[p].pfc_enabled for p in ports)
    output = CommandResult("leaf1", command, text, "", 0, 0.0)
    switch = Switch("leaf1", switch_os, "10.0.0.1", SshConfig())  # type: ignore[arg-type]
    parsed: dict[Any, Any] = {}
    started = time.process_time()
    for port in ports:  # every port's item in one process: the first parses, the others look up
        assert port_config(context(output, parsed), switch, port).name == port
    cached_s = time.process_time() - started
    started = time.process_time()
    for port in ports[:16]:  # without the cache every item would parse the whole configuration again
        assert port_config(context(output, {}), switch, port).name == port
    uncached_per_item_s = (time.process_time() - started) / 16
    ratio = uncached_per_item_s * len(ports) / cached_s
    benchmark.extra_info.update({"ports": len(ports), "all_items_cached_s": round(cached_s, 4),
                                 "per_item_uncached_ms": round(1000 * uncached_per_item_s, 2), "speedup": round(ratio, 1)})
    print(f"\n{switch_os}: {len(ports)} port items {cached_s:.3f} s with the facts cache, "
          f"{1000 * uncached_per_item_s:.1f} ms per item without ({ratio:.0f}x)")
    assert ratio > 20
