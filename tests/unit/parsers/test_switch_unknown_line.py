"""One line this parser does not know, in the middle of a real output of every switch parser: only that line's
facts are missing, the line is unread with its number and its port, every other port's facts are unchanged; a
check item names the line when its fact is missing, the other ports' items keep their verdicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.checks.switches import port_config
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.inventory import SshConfig, Switch
from pytest_gpufabric.parsers import eos_config, eos_show, junos_config, junos_show, sonic_config_db, sonic_show
from pytest_gpufabric.parsers.reading import Parsed
from pytest_gpufabric.parsers.registry import to_plain
from pytest_gpufabric.transport.base import CommandResult
from tests.outputs import read_output

# (parser, folder, file, the line after which the unknown line goes, the unknown line, its port, a fact it costs)
CASES = [
    (eos_config.parse_running_config, "eos-running-config", "running-config-s0-2.5.1.txt", "interface Ethernet2/1\n",
     "   priority-flow-control priority 3 no-drop lossless-headroom 200\n", "Ethernet2/1", None),
    (eos_show.parse_interfaces_text, "eos-interfaces", "ntc-arista_eos_show_interfaces.raw.txt",
     "Ethernet2 is up, line protocol is up (connected)\n", "  IP MTU 1500 octets , BW 10000000 kbit\n", "Ethernet2", None),
    (eos_show.parse_pfc_counters, "eos-pfc-counters", "s3-show-priority-flow-control-counters.txt", "Port RxPfc TxPfc\n",
     "Et3/1/2 0 0 0\n", "Ethernet3/1/2", None),
    (sonic_show.parse_pfc_counters, "sonic-pfc-counters", "sonic-utilities-pfcstat.txt",
     "Ethernet0   1,200     201     202     203     204     205     206     207\n",
     "Ethernet2   1,200     201     202     203     204     205     206     20x\n", "Ethernet2", None),
    (sonic_show.parse_pfcwd_stats, "sonic-pfcwd-stats", "sonic-utilities-pfcwd.txt",
     "Ethernet0:3      stormed                        1/0       100/300       100/300              0/200              0/200\n",
     "Ethernet2:3      stormed                        1/0       100/300       100 300              0/200              0/200\n",
     "Ethernet2", None),
    (sonic_show.parse_queue_counters, "sonic-queue-counters", "sonic-utilities-queuestat.txt",
     "Ethernet0    UC3              52               70           19            76\n",
     "Ethernet0   UC3a              52               70           19            76\n", "Ethernet0", None),
    (junos_config.parse_configuration, "junos-configuration", "s0-2.4.2.4-interfaces.txt",
     "        description to.AMD-ML3100-03;\n", "        mtu 9216 bytes;\n", "et-0/0/2:0", "mtu"),
    (junos_show.parse_interfaces, "junos-interfaces", "genieparser-show-interfaces-1.txt",
     "Physical interface: ge-0/0/1, Enabled, Physical link is Up\n",
     "        Link-level type: Ethernet, MTU: 1514 bytes, Speed: 1000mbps\n", "ge-0/0/1", None),
]


def insert(text: str, after: str, line: str) -> tuple[str, int]:
    """``text`` with ``line`` inserted after the first line that ends with ``after``; its 1-based number."""
    lines = text.split("\n")
    index = next(i for i, existing in enumerate(lines) if existing.rstrip().endswith(after.strip())) + 1
    lines.insert(index, line.rstrip("\n"))
    return "\n".join(lines), index + 1


def ports_of(parsed: Parsed[Any]) -> dict[str, Any]:
    facts = to_plain(parsed.facts)
    return facts["ports"] if isinstance(facts, dict) and "ports" in facts else facts


@pytest.mark.parametrize(("parse", "tool", "name", "after", "unknown", "port", "costs"), CASES,
                         ids=[f"{c[1]}/{c[2]}" for c in CASES])
def test_an_unknown_line_costs_only_its_own_facts(parse: Callable[[str], Parsed[Any]], tool: str, name: str, after: str,
                                                  unknown: str, port: str, costs: str | None) -> None:
    text = read_output(tool, name)
    damaged, number = insert(text, after, unknown)
    before, after_parse = ports_of(parse(text)), ports_of(parse(damaged))
    unread = [u for u in parse(damaged).unread if u.line == number]
    assert unread and unread[0].scope.lower().replace("ethernet", "et") in (port.lower().replace("ethernet", "et"),), unread
    for other, facts in before.items():
        if other != port:
            assert after_parse.get(other) == facts, other
    if costs is not None:
        assert after_parse[port][costs] is None and before[port][costs] is not None
        assert {k: v for k, v in after_parse[port].items() if k != costs} == {k: v for k, v in before[port].items() if k != costs}


def test_sonic_config_db_field_not_understood_costs_only_that_fact() -> None:
    text = read_output("sonic-config-db", "sonic-utilities-config_db-s6100.json")
    damaged = text.replace('"mtu": "9100"', '"mtu": "9100 bytes"', 1)
    before, after = sonic_config_db.parse_config_db(text), sonic_config_db.parse_config_db(damaged)
    changed = [name for name in before.facts.ports if before.facts.ports[name] != after.facts.ports[name]]
    assert len(changed) == 1 and after.facts.ports[changed[0]].mtu is None
    assert after.facts.ports[changed[0]].pfc_enabled == before.facts.ports[changed[0]].pfc_enabled
    assert [u.scope for u in after.unread] == changed and "9100 bytes" in after.unread[0].reason


def test_eos_interfaces_json_entry_not_understood_costs_only_that_port() -> None:
    text = read_output("eos-interfaces-json", "napalm-show-interfaces.json")
    damaged = text.replace('"mtu": 9214', '"mtu": "9214"', 1)
    before, after = eos_show.parse_interfaces_json(text), eos_show.parse_interfaces_json(damaged)
    missing = set(before.facts) - set(after.facts)
    assert len(missing) == 1 and [u.scope for u in after.unread] == list(missing)
    assert all(after.facts[name] == before.facts[name] for name in after.facts)


def test_the_item_of_the_port_names_the_line_and_the_others_keep_their_verdicts() -> None:
    text, number = insert(read_output("eos-running-config", "running-config-s0-2.5.1.txt"), "interface Ethernet2/1\n",
                          "   service-profile QOS_ROCE_DCQCN_V2\n")
    output = CommandResult("leaf1", "show running-config", text, "", 0, 0.0)
    switch = Switch("leaf1", "arista", "10.0.0.1", SshConfig())
    parsed: dict[Any, Any] = {}

    def context(target: str) -> CheckContext:
        return CheckContext(load_catalog().get("SW-001"), target, Profile("p", "p", {}, {}, {}), lambda *_: output,
                            parsed=parsed)

    healthy = port_config(context("leaf1/Ethernet1/1"), switch, "Ethernet1/1")
    assert healthy.pfc_enabled and healthy.no_drop_priorities == frozenset({3})
    damaged_context = context("leaf1/Ethernet2/1")
    damaged = port_config(damaged_context, switch, "Ethernet2/1")
    assert damaged.mtu == 9200 and damaged.pfc_enabled is None  # two service-profile lines: the QoS is not known
    with pytest.raises(MeasurementMissing, match=rf"pfc_enabled could not be measured; unread lines that could hold it: "
                       rf"leaf1 `show running-config` line {number}: 'service-profile QOS_ROCE_DCQCN_V2'"):
        damaged_context.judge("pfc_enabled", damaged.pfc_enabled)
