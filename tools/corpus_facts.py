"""Facts read / facts present on the corpus of real node-tool outputs (fixtures/outputs/<family>/).

Each family that has a ``FACTS.yaml`` lists, per output file, every fact a person reads in it (``facts``: key ->
value, the key naming what the value is about) and, apart, the outputs that are not tool outputs as printed
(``not_an_output``: an OCR of a document page, with why). A fact is **read** when the parser gives it with the
same value, **misread** when the parser gives another value, **missing** when the parser does not give it; an
output the parser refuses whole counts all its facts missing. Facts the parser gives that are not listed are
**invented** (counted as misread).

    python -m tools.corpus_facts                   # the table per family and overall
    python -m tools.corpus_facts --family X        # with every fact not read, per file
    python -m tools.corpus_facts --outputs DIR     # a held-out set laid out the same way (DIR/<family>/FACTS.yaml)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.all import MODULES  # noqa: F401  (registers every parser)
from pytest_gpufabric.parsers.reading import facts_of
from pytest_gpufabric.parsers.registry import PARSERS, to_plain
from tools.corpus_node_tools import NODE_TOOLS

OUTPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "outputs"
FACTS_FILE = "FACTS.yaml"
# The topology families of the first figure; the others count in the overall figure only.
TOPOLOGY = ("nvidia-smi-topo", "rocm-smi-showtopo", "rocm-smi-showtopotype", "rocm-smi-showbus", "amd-smi-topology",
            "amd-smi-topology-json", "lldpctl-keyvalue", "rdma-link", "ibdev2netdev", "ip-addr")


def _pairs(matrix: dict[str, dict[str, str]], devices: list[str], prefix: str) -> Iterator[tuple[str, str]]:
    """``<prefix> a b`` -> value for each unordered pair of distinct devices, from either row."""
    for i, a in enumerate(devices):
        for b in devices[i + 1:]:
            value = matrix.get(a, {}).get(b) or matrix.get(b, {}).get(a)
            if value:
                yield f"{prefix} {a} {b}", value


def _topo(facts: dict[str, Any]) -> dict[str, str]:
    out = dict(_pairs(facts["links"], facts["devices"], "link"))
    for device, extra in facts["extra"].items():
        out.update({f"{name} {device}": value for name, value in extra.items()})
    out.update({f"nic {label}": name for label, name in facts["nics"].items()})
    return out


def _matrix(facts: dict[str, Any] | None, prefix: str) -> dict[str, str]:
    return dict(_pairs(facts["links"], facts["devices"], prefix)) if facts else {}


def _showtopo(facts: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for kind in ("weight", "hops", "link_type", "access"):
        out.update(_matrix(facts[kind], kind))
    out.update({f"numa_node GPU{gpu}": str(node) for gpu, node in facts["numa_node"].items()})
    out.update({f"numa_affinity GPU{gpu}": str(node) for gpu, node in facts["numa_affinity"].items()})
    return out


def _amd_topology(facts: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for table, rows in facts["tables"].items():
        out.update(_pairs(rows, facts["devices"], table))
    return out


def _lldp(facts: dict[str, Any]) -> dict[str, str]:
    out = {}
    for iface, n in facts.items():
        for name in ("switch", "port", "management_ipv4", "port_id", "port_description"):
            if n[name]:
                out[f"{name} {iface}"] = n[name]
        if n["description"]:
            out[f"description {iface}"] = " ".join(n["description"].split())
    return out


def _rdma(facts: dict[str, Any]) -> dict[str, str]:
    out = {}
    for link in facts["links"]:
        for name in ("state", "physical_state", "netdev", "lid", "sm_lid", "subnet_prefix", "lmc"):
            if link[name] is not None:
                out[f"{name} {link['device']}/{link['port']}"] = str(link[name])
    return out


def _ibdev2netdev(facts: dict[str, Any]) -> dict[str, str]:
    out = {}
    for m in facts["mappings"]:
        out[f"netdev {m['device']}/{m['port']}"] = m["netdev"]
        out[f"netdev_up {m['device']}/{m['port']}"] = str(m["netdev_up"])
    return out


def _ip_addr(facts: dict[str, Any]) -> dict[str, str]:
    out = {}
    for entry in facts["interfaces"]:
        for address in entry["addresses"]:
            out[f"inet {entry['name']} {address}"] = "present"
        if entry["index"] is not None and entry["addresses"]:
            out[f"index {entry['name']}"] = str(entry["index"])
    return out


def _by_gpu(facts: dict[str, Any], fields: tuple[str, ...]) -> dict[str, str]:
    return {f"{name} GPU{gpu}": str(item[name]) for gpu, item in facts.items() for name in fields if item.get(name) is not None}


def _xgmi(facts: dict[str, Any]) -> dict[str, str]:
    out = {f"ports {gpu}": " ".join(states) for gpu, states in facts["ports"].items()}
    out.update({f"status {gpu} {peer}": state for gpu, row in facts["peers"].items() for peer, state in row.items()})
    for gpu, link in facts["links"].items():
        out.update({f"{name} {gpu}": link[name] for name in ("bdf", "bit_rate", "max_bandwidth", "link_type")})
        out.update({f"read {gpu} {peer}": value for peer, value in link["read"].items()})
        out.update({f"write {gpu} {peer}": value for peer, value in link["write"].items()})
    return out


def _nccl(facts: dict[str, Any]) -> dict[str, str]:
    out = {"avg_busbw": str(facts["avg_busbw_gbs"])} if facts["avg_busbw_gbs"] is not None else {}
    if facts["out_of_bounds"] is not None:
        out["out_of_bounds"] = str(facts["out_of_bounds"])
    for row in facts["rows"]:
        for placement in ("out_of_place", "in_place"):
            if row[placement]:
                out[f"busbw {row['size_bytes']} {placement}"] = str(row[placement]["busbw_gbs"])
                if row[placement]["wrong"] is not None:
                    out[f"wrong {row['size_bytes']} {placement}"] = str(row[placement]["wrong"])
    return out


def _present(facts: dict[str, Any], names: tuple[str, ...]) -> dict[str, str]:
    """The named fields of a flat record that hold a value (None and "" are not read)."""
    return {name: str(facts[name]) for name in names if facts.get(name) not in (None, "")}


def _links(facts: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for link in facts["links"]:
        name = link["name"]
        out.update({f"index {name}": str(link["index"]), f"mtu {name}": str(link["mtu"]),
                    f"admin_up {name}": str("UP" in link["flags"]), f"carrier {name}": str("LOWER_UP" in link["flags"])})
        out.update({f"{key} {name}": str(link[key]) for key in ("state", "mac", "parent") if link[key]})
    return out


def _routes(facts: list[dict[str, Any]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for route in facts:
        destination = route["destination"]
        out.update({f"{name} {destination}": route[key] for key, name in
                    (("gateway", "gateway"), ("device", "device"), ("source", "source")) if route[key]})
        if route.get("kind", "unicast") != "unicast":
            out[f"type {destination}"] = route["kind"]
        out.update({f"nexthop {destination} {hop['gateway']}": hop["device"] for hop in route.get("nexthops", ())})
    return out


def _tree(facts: dict[str, Any]) -> dict[str, str]:
    """``amd-smi static``/``metric`` blocks: every leaf as ``GPU<n> SECTION.KEY`` -> value."""
    out: dict[str, str] = {}

    def walk(prefix: str, node: Any) -> None:
        for key, value in node.items():
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(value, dict):
                walk(path, value)
            else:
                out[path] = str(value)

    for gpu, tree in facts.items():
        walk(f"GPU{gpu} ", tree)
    return {key.replace(" .", " ", 1) if " ." in key else key: value for key, value in out.items()}


FLATTEN: dict[str, Callable[[Any], dict[str, str]]] = {
    "ethtool": lambda facts: {**_present(facts, ("interface", "speed_mbps", "duplex", "auto_negotiation")),
                              **({"link_detected": str(facts["link_detected"])} if facts["link_detected"] is not None else {})},
    "ethtool-i": lambda facts: _present(facts, ("driver", "version", "firmware_version", "bus_info")),
    "ip-link": _links,
    "ip-route": _routes,
    "amd-smi-static": _tree,
    "amd-smi-metric": _tree,
    "nvidia-smi-topo": _topo,
    "rocm-smi-showtopotype": lambda facts: _matrix(facts, "link_type"),
    "rocm-smi-showtopo": _showtopo,
    "rocm-smi-showbus": lambda facts: {f"bus GPU{gpu}": bdf for gpu, bdf in facts.items()},
    "amd-smi-topology": _amd_topology,
    "amd-smi-topology-json": _amd_topology,
    "amd-smi-list": lambda facts: _by_gpu(facts, ("bdf", "uuid", "kfd_id", "node_id", "partition_id")),
    "amd-smi-firmware": lambda facts: {f"{fw} GPU{gpu}": v for gpu, fws in facts.items() for fw, v in fws.items()},
    "amd-smi-xgmi": _xgmi,
    "lldpctl-keyvalue": _lldp,
    "rdma-link": _rdma,
    "ibdev2netdev": _ibdev2netdev,
    "ip-addr": _ip_addr,
    "nccl-tests": _nccl,
    "systemd-detect-virt": lambda facts: {"virtualization": facts},
    "sysfs-dmi-id": lambda facts: {"value": facts},
    "proc-cpuinfo-flags": lambda facts: {"x86": str(facts["x86"]), "hypervisor": str("hypervisor" in facts["flags"])},
    "sysfs-iommu-group": lambda facts: {f"group_type {bdf}": str(kind) for bdf, kind in facts.items()},
    **NODE_TOOLS,
}


def read_facts(family: str, text: str) -> dict[str, str] | None:
    """The facts the family's parser gives for ``text`` (flattened), None when it refuses the output."""
    try:
        parsed = PARSERS.get(family).func(text)
    except ParseError:
        return None
    return FLATTEN[family](to_plain(facts_of(parsed)))


@dataclass
class Tally:
    """Facts of one family (or of all): present, read, misread (with invented ones), missing; outputs."""

    present: int = 0
    read: int = 0
    misread: int = 0
    missing: int = 0
    outputs: int = 0
    refused: int = 0
    crashed: int = 0
    details: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("present", "read", "misread", "missing", "outputs", "refused", "crashed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def percent(self) -> float:
        return 100.0 * self.read / self.present if self.present else 100.0


def expected(family: str, root: Path = OUTPUTS) -> dict[str, Any]:
    path = root / family / FACTS_FILE
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {} if path.exists() else {}


def measure_file(family: str, name: str, present: dict[str, str], root: Path = OUTPUTS) -> Tally:
    with open(root / family / name, encoding="utf-8", newline="") as handle:  # byte for byte: CRLF kept
        text = handle.read()
    tally = Tally(present=len(present), outputs=1)
    try:
        got = read_facts(family, text)
    except Exception as exc:  # noqa: BLE001 - a crash is what this tool counts
        tally.crashed, tally.missing = 1, len(present)
        tally.details.append(f"{name}: CRASH {type(exc).__name__}: {exc}")
        return tally
    if got is None:
        tally.refused, tally.missing = 1 if present else 0, len(present)
        tally.details.append(f"{name}: refused ({len(present)} facts)")
        return tally
    for key, value in present.items():
        if key not in got:
            tally.missing += 1
            tally.details.append(f"{name}: not read {key} = {value!r}")
        elif got[key] != str(value):
            tally.misread += 1
            tally.details.append(f"{name}: MISREAD {key} = {got[key]!r}, the output says {value!r}")
        else:
            tally.read += 1
    for key in set(got) - set(present):
        tally.misread += 1
        tally.details.append(f"{name}: INVENTED {key} = {got[key]!r}")
    return tally


def measure(families: list[str] | None = None, root: Path = OUTPUTS) -> dict[str, Tally]:
    found = {}
    for family in families or sorted(p.name for p in root.iterdir() if (p / FACTS_FILE).exists()):
        tally = Tally()
        for name, entry in expected(family, root).items():
            if "not_an_output" not in entry:
                one = measure_file(family, name, {key: str(value) for key, value in (entry.get("facts") or {}).items()},
                                   root)
                tally.add(one)
                tally.details += one.details
        found[family] = tally
    return found


def table(tallies: dict[str, Tally]) -> str:
    rows = [("family", "outputs", "facts", "read", "misread", "missing", "refused", "crashed", "read %")]
    topology, total = Tally(), Tally()
    for family, tally in tallies.items():
        rows.append((family, tally.outputs, tally.present, tally.read, tally.misread, tally.missing, tally.refused,
                     tally.crashed, f"{tally.percent:.1f}"))
        total.add(tally)
        if family in TOPOLOGY:
            topology.add(tally)
    for label, tally in (("topology families", topology), ("all node tools", total)):
        rows.append((label, tally.outputs, tally.present, tally.read, tally.misread, tally.missing, tally.refused,
                     tally.crashed, f"{tally.percent:.1f}"))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", action="append", help="only this family, with every fact not read")
    parser.add_argument("--outputs", type=Path, default=OUTPUTS, help="the directory of <family>/ folders to measure")
    args = parser.parse_args(argv)
    tallies = measure(args.family, args.outputs)
    print(table(tallies))
    if args.family:
        for tally in tallies.values():
            print("\n".join(tally.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
