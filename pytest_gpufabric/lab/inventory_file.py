"""The lab as a site.yaml (schema version 1): nodes reached over the management network, backend NICs
with their rail, gateway and source-routing table."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from pytest_gpufabric.lab.sshd import SSH_PORT
from pytest_gpufabric.lab.topology import LabPlan

# The platform of the documents the lab mirrors (S0: AMD GPUs, Broadcom NICs, bare metal), so the catalog's
# `applies` selects the checks of that platform; the lab-linux profile's `not_applicable` then skips, with
# a reason, every check that needs a GPU, an RDMA device or a Broadcom tool (the lab lists no GPUs).
LAB_PLATFORM: dict[str, str] = {
    "gpu_vendor": "amd",
    "gpu_model": "none",
    "nic_vendor": "broadcom",
    "deployment": "baremetal",
}


def site_document(
    plan: LabPlan,
    *,
    profile: str,
    ssh_key: Path,
    known_hosts: Path,
    speeds_gbps: Mapping[tuple[str, str], int],
) -> dict[str, Any]:
    """The site.yaml content describing ``plan``; ``speeds_gbps[(node, netdev)]`` as measured on the lab."""
    return {
        "version": 1,
        "site": f"lab-{plan.lab_id}",
        "profile": profile,
        "transport": "ssh",
        "defaults": {
            "ssh": {
                "user": "root",
                "port": SSH_PORT,
                "key": str(ssh_key),
                "known_hosts": str(known_hosts),
            },
            "platform": dict(LAB_PLATFORM),
        },
        "nodes": [
            {
                "name": node.name,
                "address": str(node.mgmt_ip),
                "nics": [
                    {
                        "name": nic.name,
                        "netdev": nic.netdev,
                        "ipv4": str(nic.ipv4),
                        "pci": nic.pci,
                        "speed_gbps": speeds_gbps[(node.name, nic.netdev)],
                        "rail": nic.rail,
                        "gateway": str(nic.gateway),
                        "route_table": nic.route_table,
                    }
                    for nic in node.nics
                ],
            }
            for node in plan.nodes
        ],
    }


def write_site_yaml(path: Path, document: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False, default_flow_style=False))
    return path
