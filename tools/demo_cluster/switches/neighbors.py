"""What the demo's leaf switches say is at the other end of their ports (CAB-001): their LLDP neighbor tables and
MAC address tables, in the forms of real outputs (fixtures/outputs/{eos,sonic,junos}-*/SOURCES.md): EOS `show lldp
neighbors` as cEOS prints a Linux host running lldpd (its host name, its NIC's MAC address as port ID) and `show mac
address-table`; SONiC `show lldp table` and `show mac` as sonic-utilities' tabulate prints them; Junos `show lldp
neighbors` and the ELS `show ethernet-switching table`.

node01..node03 run lldpd (its CLI is not on the hosts' PATH: the demo's nodes answer `lldpctl` with "command not
found"), so the switches hear them; node04 runs none, so its NICs are known to the switches by their MAC addresses
only. One NIC is miswired: node02/bnxt_re6 (rail 6, planned on leaf3 Ethernet2/1) is cabled to leaf1 Ethernet17/1,
a spare port of the rail 0-3 leaf; leaf3 hears nothing on Ethernet2/1. The other switch checks' outputs are left as
they are (they judge configuration and counters, not where a cable ends)."""

from __future__ import annotations

from tools.demo_cluster.switches import SWITCHES, DemoSwitch, cabling
from tools.demo_cluster.topology import NODES, DemoNode, DemoSlot

MISWIRED = {("node02", 6): ("leaf1", "Ethernet17/1")}  # (node, rail) -> (switch, port) it is really cabled to
NO_LLDPD = frozenset({"node04"})
Outputs = dict[str, tuple[str, int]]


def _vlan(slot: DemoSlot) -> int:
    """S0 2.4.1: one VLAN per NIC position (the QFX example's vlan2..vlan9)."""
    return slot.index + 2


def _ends(switch: DemoSwitch) -> list[tuple[str, DemoNode, DemoSlot]]:
    """The (port, node, slot) really cabled to ``switch``, in port order."""
    found = []
    for node in NODES:
        for slot in node.slots:
            planned = cabling(node, slot)
            if planned is None:
                continue
            name, port = MISWIRED.get((node.name, slot.index), (planned[0].name, planned[1]))
            if name == switch.name:
                found.append((port, node, slot))
    return sorted(found, key=lambda end: _port_order(end[0]))


def _port_order(port: str) -> tuple[int, ...]:
    return tuple(int(part) for part in "".join(c if c.isdigit() else " " for c in port).split())


def _dotted(mac: str) -> str:
    digits = mac.replace(":", "")
    return ".".join(digits[i:i + 4] for i in range(0, 12, 4))


def _eos_short(port: str) -> str:
    return port.replace("Ethernet", "Et", 1)


def _eos(switch: DemoSwitch, ends: list[tuple[str, DemoNode, DemoSlot]]) -> Outputs:
    heard = [(port, node, slot) for port, node, slot in ends if node.name not in NO_LLDPD]
    lldp = ["Last table change time   : 2:14:07 ago", f"Number of table inserts  : {len(heard)}",
            "Number of table deletes  : 0", "Number of table drops    : 0", "Number of table age-outs : 0", "",
            "Port          Neighbor Device ID       Neighbor Port ID    TTL",
            "---------- ------------------------ ---------------------- ---"]
    lldp += [f"{_eos_short(port):<14}{node.name:<25}{_dotted(node.nic_mac(slot)):<20}120" for port, node, slot in heard]
    macs = ["          Mac Address Table", "-" * 66, "", "Vlan    Mac Address       Type        Ports      Moves   Last Move",
            "----    -----------       ----        -----      -----   ---------"]
    macs += [f"{_vlan(slot):>4}    {_dotted(node.nic_mac(slot)):<18}DYNAMIC     {_eos_short(port):<11}1       2:13:52 ago"
             for port, node, slot in ends]
    macs += [f"Total Mac Addresses for this criterion: {len(ends)}", "", "          Multicast Mac Address Table", "-" * 66, "",
             "Vlan    Mac Address       Type        Ports", "----    -----------       ----        -----",
             "Total Mac Addresses for this criterion: 0"]
    return {"show lldp neighbors": ("\n".join(lldp) + "\n", 0), "show mac address-table": ("\n".join(macs) + "\n", 0)}


def _tabulate(header: list[str], rows: list[list[str]], right: frozenset[int] = frozenset()) -> list[str]:
    """Rows as python-tabulate's "simple" format prints them (SONiC's show commands): a column as wide as its
    widest cell or its header plus tabulate's minimum padding of 2, two spaces between columns."""
    widths = [max(len(column[0]) + 2, *(len(cell) for cell in column[1:])) for column in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return [line(header), "  ".join("-" * w for w in widths), *(line(row) for row in rows)]


def _sonic(switch: DemoSwitch, ends: list[tuple[str, DemoNode, DemoSlot]]) -> Outputs:
    heard = [[port, node.name, node.nic_mac(slot), "R", slot.netdev] for port, node, slot in ends if node.name not in NO_LLDPD]
    lldp = ["Capability codes: (R) Router, (B) Bridge, (O) Other",
            *_tabulate(["LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr"], heard),
            "-" * 50, f"Total entries displayed:  {len(heard)}"]
    rows = [[str(n), str(_vlan(slot)), node.nic_mac(slot).upper(), port, "Dynamic"] for n, (port, node, slot) in enumerate(ends, 1)]
    macs = [*_tabulate(["No.", "Vlan", "MacAddress", "Port", "Type"], rows, right=frozenset({0, 1})), f"Total number of entries {len(rows)}"]
    return {"show lldp table": ("\n".join(lldp) + "\n", 0), "show mac": ("\n".join(macs) + "\n", 0)}


def _junos(switch: DemoSwitch, ends: list[tuple[str, DemoNode, DemoSlot]]) -> Outputs:
    lldp = ["Local Interface    Parent Interface    Chassis Id          Port info          System Name"]
    lldp += [f"{port:<19}{'-':<20}{node.nic_mac(node.slots[0]):<20}{slot.netdev:<19}{node.name}"
             for port, node, slot in ends if node.name not in NO_LLDPD]
    macs = ["", "MAC flags (S - static MAC, D - dynamic MAC, L - locally learned, P - Persistent static",
            "           SE - statistics enabled, NM - non configured MAC, R - remote PE MAC, O - ovsdb MAC)", "", "",
            f"Ethernet switching table : {len(ends)} entries, {len(ends)} learned", "Routing instance : default-switch",
            "    Vlan                MAC                 MAC         Age    Logical                NH        RTR",
            "    name                address             flags              interface              Index     ID"]
    macs += [f"    {'vlan' + str(_vlan(slot)):<20}{node.nic_mac(slot):<20}D             -   {port + '.0':<23}0         0"
             for port, node, slot in ends]
    return {"show lldp neighbors": ("\n".join(lldp) + "\n", 0),
            "show ethernet-switching table": ("\n".join([*macs, "", "{master:0}"]) + "\n", 0)}


BUILDERS = {"arista": _eos, "sonic": _sonic, "juniper": _junos}


def neighbor_outputs(switch: DemoSwitch) -> Outputs:
    """The switch's LLDP neighbor table and MAC address table."""
    return BUILDERS[switch.os](switch, _ends(switch))


def all_neighbor_outputs() -> dict[str, Outputs]:
    return {switch.name: neighbor_outputs(switch) for switch in SWITCHES}
