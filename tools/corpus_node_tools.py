"""The facts of the node-tool parsers outside topology (lspci, kernel modules, RDMA diagnostics, niccli, host and
VMware files, perftest, OSU, ping, gdrcopy, deviceQuery, NCCL_DEBUG) as ``key -> value`` strings, for the corpus
measure of ``tools/corpus_facts.py``: one key per fact a person reads in the output, named by what it is about
(``state mlx5_0/1``, ``lnksta 0000:43:00.0``). Numbers are written as the output prints them where the parser
keeps them as numbers (``100`` for 100.0); free text has its runs of whitespace collapsed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Facts = dict[str, str]


def _number(value: Any) -> str:
    """``100`` for 100.0, ``2.5`` for 2.5: a number as a person reads it in the output."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _words(text: str) -> str:
    return " ".join(str(text).split())


def _put(out: Facts, key: str, value: Any) -> None:
    if value is not None and value != "" and value != []:
        out[key] = _number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def _link(link: dict[str, Any] | None) -> str | None:
    if link is None:
        return None
    speed = "unknown" if link["speed_gts"] is None else f"{_number(link['speed_gts'])}GT/s"
    flags = " downgraded" if link["speed_downgraded"] or link["width_downgraded"] else ""
    return f"{speed} x{link['width']}{flags}"


def _lspci(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for f in facts["functions"]:
        bdf = f["bdf"]
        _put(out, f"class {bdf}", f["class_name"])
        _put(out, f"driver {bdf}", f["driver"])
        _put(out, f"lnkcap {bdf}", _link(f["link_cap"]))
        _put(out, f"lnksta {bdf}", _link(f["link_sta"]))
        if f["acs_ctl"] is not None:
            out[f"acsctl {bdf}"] = " ".join(f"{name}{'+' if on else '-'}" for name, on in f["acs_ctl"].items())
    return out


def _modinfo(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for key, values in facts["fields"].items():
        if len(values) == 1 and key not in ("alias", "parm", "firmware"):
            out[key] = _words(values[0])
            continue
        for value in values:
            if key == "parm":
                name, _, text = value.partition(":")
                out[f"parm {name}"] = _words(text)
            else:
                out[f"{key} {_words(value)}"] = "present"
    return out


def _modules(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for m in facts["modules"]:
        out[f"size {m['name']}"] = str(m["size"])
        out[f"used_count {m['name']}"] = str(m["used_count"])
        _put(out, f"used_by {m['name']}", ",".join(m["used_by"]))
    return out


def _dkms(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for e in facts["entries"] if isinstance(facts, dict) else facts:  # a tuple of entries before the rule
        status = e["status"] + (f" ({e['note']})" if e["note"] else "")
        out[f"{e['module']}/{e['version']} {e['kernel'] or '-'} {e['arch'] or '-'}"] = status
    return out


def _ibstat(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for ca in facts["adapters"]:
        for name in ("ca_type", "node_guid", "number_of_ports"):
            _put(out, f"{name} {ca['name']}", ca.get(name))
        for p in ca["ports"]:
            for name in ("state", "physical_state", "rate_gbps", "link_layer", "port_guid"):
                _put(out, f"{name} {ca['name']}/{p['number']}", p[name])
    return out


def _ibstatus(facts: list[dict[str, Any]]) -> Facts:
    out: Facts = {}
    for p in facts:
        for name in ("default_gid", "state", "physical_state", "rate_gbps", "link_layer"):
            _put(out, f"{name} {p['device']}/{p['port']}", p[name])
    return out


def _devinfo(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for d in facts["devices"]:
        for name in ("transport", "fw_ver", "node_guid", "vendor_id", "vendor_part_id", "board_id"):
            _put(out, f"{name} {d['hca_id']}", d[name])
        for p in d["ports"]:
            for name in ("state", "max_mtu", "active_mtu", "link_layer"):
                _put(out, f"{name} {d['hca_id']}/{p['number']}", p[name])
            for index, gid in p["gids"].items():
                out[f"gid {d['hca_id']}/{p['number']}[{index}]"] = gid["gid"] + (f", {gid['kind']}" if gid["kind"] else "")
    for w in facts["abi_warnings"]:
        out[f"abi_warning {w['device_path']}"] = f"{w['driver']} {w['kernel_abi']} ({w['supported_min']} to {w['supported_max']})"
    return out


def _show_gids(facts: dict[str, Any]) -> Facts:
    out: Facts = {f"gid {e['device']}/{e['port']}[{e['index']}]": " ".join(
        str(v) for v in (e["gid"], e["ipv4"], e["version"], e["netdev"]) if v) for e in facts["entries"]}
    _put(out, "n_gids_found", facts.get("declared"))
    return out


def _sysfs_infiniband(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for p in facts["ports"]:
        where = f"{p['device']}/{p['port']}"
        out.update({f"{name} {where}": value for name, value in p["attributes"].items()})
        out.update({f"{name}[{index}] {where}": value for index, gid in p["gids"].items() for name, value in gid.items()})
    return out


def _pci_link(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for name in ("current_speed_gts", "current_width", "max_speed_gts", "max_width"):
        _put(out, f"{name} {facts['bdf']}", facts[name])
    return out


def _bandwidth(facts: list[dict[str, Any]]) -> Facts:
    out: Facts = {}
    for n in facts:
        text = f"{_number(n['available_gbps'])} Gb/s {n['speed']} GT/s x{n['width']}"
        if n["limited_by"]:
            text += f" limited by {n['limited_by']}, capable {_number(n['capable_gbps'])} Gb/s {n['capable_speed']} GT/s x{n['capable_width']}"
        out[f"bandwidth {n['device']}"] = text
    return out


def _kallsyms(facts: dict[str, Any]) -> Facts:
    return {f"{s['name']} [{s['module'] or 'kernel'}]": f"{s['kind']} {s['address']}" for s in facts["symbols"]}


def _cmdline(facts: dict[str, Any]) -> Facts:
    return {name if value is None else f"{name}={value}": "present" for name, value in facts["params"]}


def _dpkg(facts: dict[str, Any]) -> Facts:
    return {p["name"]: " ".join(str(v) for v in (p["state"], p["version"], p["architecture"]) if v) for p in facts["packages"]}


def _pairs(mapping: dict[Any, Any] | None) -> str | None:
    return None if mapping is None else " ".join(f"{k}:{v}" for k, v in mapping.items())


def _niccli_qos(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    _put(out, "PRIO_MAP", _pairs(facts["prio_map"]))
    _put(out, "TSA_MAP", _pairs(facts["tsa_map"]))
    for name, key in (("TC Bandwidth", "tc_bandwidth"), ("TC Rate Limit", "tc_rate_limit")):
        if facts[key] is not None:
            out[name] = " ".join(f"{value}%" for value in facts[key])
    if facts["pfc_enabled"] is not None:
        out["PFC enabled"] = ",".join(str(p) for p in sorted(facts["pfc_enabled"])) or "none"
    for a in facts["app"] or ():
        out[f"APP#{a['index']}"] = f"{a['protocol']} {a['value']} -> priority {a['priority']} sel {a['selector']}"
    return out


def _pri2cos(facts: dict[str, Any]) -> Facts:
    out = {f"priority {e['priority']}": f"tc {e['traffic_class']} queue {e['hw_queue']}" for e in facts["entries"]}
    _put(out, "base_queue", facts["base_queue"])
    return out


def _niccli_list(facts: list[dict[str, Any]]) -> Facts:
    fields = ("board", "mac", "firmware", "pci_address", "kind", "mode", "interface", "port")
    return {f"nic {n['index']}": " ".join(str(n[f]) for f in fields if n[f]) for n in facts}


def _perftest(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for name in ("test", "device", "num_qps", "transport", "connection", "mtu_bytes", "link_type", "gid_index", "bw_unit"):
        _put(out, name, facts[name])
    for row in facts["bandwidth_rows"]:
        out[f"bw {row['bytes']}"] = " ".join(_number(row[k]) for k in ("iterations", "bw_peak", "bw_average", "msg_rate_mpps"))
    for row in facts["latency_rows"]:
        values = [row[k] for k in ("iterations", "t_min", "t_max", "t_typical", "t_avg", "t_stdev", "p99", "p99_9")]
        out[f"lat {row['bytes']}"] = " ".join(_number(v) for v in values if v is not None)
    for error in facts["errors"]:
        out[f"error {error['line']}"] = error["kind"]
    if facts["gpu_memory"]:
        gpu = facts["gpu_memory"]
        out["gpu_memory"] = " ".join(str(v) for v in (gpu["runtime"], gpu["device_id"], gpu["name"], gpu["pci_bus_id"]) if v is not None)
    return out


def _osu(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    _put(out, "title", facts["title"])
    _put(out, "version", facts["version"])
    if facts["columns"]:
        out["columns"] = " | ".join(c["name"] for c in facts["columns"])
    out.update({f"size {row['size_bytes']}": " ".join(_number(v) for v in row["values"]) for row in facts["rows"]})
    return out


def _ping(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for name in ("destination", "source", "payload_bytes", "transmitted", "received", "loss_percent", "rtt_min_ms",
                 "rtt_avg_ms", "rtt_max_ms", "rtt_mdev_ms", "path_mtu", "fatal_error"):
        _put(out, name, facts[name])
    if facts["transmitted"] is not None:
        _put(out, "errors", facts["errors"])
    for index, message in enumerate(facts["error_messages"]):
        out[f"message {index + 1}"] = message
    return out


def _gdrcopy(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    for name in ("total", "passed", "failed", "waived"):
        _put(out, name, facts[name])
    out.update({f"waived {name}": "listed" for name in facts["waived_tests"]})
    out.update({f"failed {name}": "listed" for name in facts.get("failed_tests", ())})
    out.update({f"outcome {name}": outcome for name, outcome in (facts.get("outcomes") or {}).items()})
    return out


def _device_query(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    _put(out, "passed", facts["passed"])
    _put(out, "device_count", facts["device_count"])
    _put(out, "num_devs", facts.get("num_devs"))
    out.update({f"device {index}": name for index, name in enumerate(facts["device_names"])})
    out.update({f"error {error}": "printed" for error in facts["errors"]})
    return out


def _nccl_debug(facts: dict[str, Any]) -> Facts:
    out: Facts = {}
    _put(out, "nccl_version", facts["nccl_version"])
    out.update({f"net_ib {d['index']}": f"{d['name']}:{d['port']}/{d['link']}" for d in facts["ib_devices"]})
    if facts["ib_no_device"]:
        out["net_ib"] = "no device"
    out.update({f"net_socket {name}": "used" for name in facts["socket_interfaces"]})
    for c in facts["channels"]:
        where = f"channel {c['channel']:02d} {c['source_rank']}[{c['source_device']}] -> {c['target_rank']}[{c['target_device']}]"
        out[where + (f" {c['direction']}" if c["direction"] else "")] = c["transport"]
    out.update({f"warn {w}": "printed" for w in facts["warnings"]})
    return out


NODE_TOOLS: dict[str, Callable[[Any], Facts]] = {
    "lspci-vvv": _lspci,
    "modinfo": _modinfo,
    "lsmod": _modules,
    "proc-modules": _modules,
    "dkms-status": _dkms,
    "sysfs-module-version": lambda facts: {"version": facts},
    "ibstat": _ibstat,
    "ibstatus": _ibstatus,
    "ibv-devinfo": _devinfo,
    "ibv-devices": lambda facts: {f"node_guid {d['name']}": d["node_guid"] for d in facts},
    "show-gids": _show_gids,
    "sysfs-infiniband": _sysfs_infiniband,
    "sysfs-pci-link": _pci_link,
    "kernel-pcie-bandwidth": _bandwidth,
    "kallsyms": _kallsyms,
    "proc-cmdline": _cmdline,
    "dpkg-list": _dpkg,
    "bnxt-re-conf": lambda facts: dict(facts["values"]),
    "niccli-qos": _niccli_qos,
    "niccli-pri2cos": _pri2cos,
    "niccli-dscp2prio": lambda facts: {f"dscp {dscp}": str(priority) for dscp, priority in facts["mapping"].items()},
    "niccli-nvm-getoption": lambda facts: {facts["name"]: facts["value"]},
    "niccli-list": _niccli_list,
    "esxcli-kernel-settings": lambda facts: {name: " ".join((s["type"], s["configured"], s["runtime"], s["default"]))
                                             for name, s in facts.items()},
    "vmx-settings": lambda facts: dict(facts["values"]),
    "passthru-map": lambda facts: {f"{e['vendor_id']} {e['device_id']}": f"{e['reset_method']} {e['fpt_shareable']}" for e in facts},
    "perftest": _perftest,
    "osu": _osu,
    "ping": _ping,
    "gdrcopy-sanity": _gdrcopy,
    "device-query": _device_query,
    "nccl-debug": _nccl_debug,
}
