"""`gpufabric discover` over real SSH against the 4-node, 2-rail namespace lab: the site.yaml it writes equals
(after sorting) the one the lab generated, and the acceptance suite gives the healthy lab's verdicts with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_gpufabric.cli import main
from pytest_gpufabric.lab import Lab
from pytest_gpufabric.lab.inventory_file import LAB_PLATFORM
from pytest_gpufabric.lab.sshd import SSH_PORT
from tests.lab.suite_run import REPO, run_suite
from tests.lab.test_lab_acceptance import assert_verdicts_except

pytestmark = pytest.mark.lab


def sorted_site(path: Path) -> dict[str, Any]:
    """The site as data, nodes by name and NICs by name (comments and key order do not count)."""
    site = yaml.safe_load(path.read_text())
    site["nodes"] = sorted(site["nodes"], key=lambda node: node["name"])
    for node in site["nodes"]:
        node["nics"] = sorted(node.get("nics", []), key=lambda nic: nic["name"])
    return site


@pytest.fixture(scope="module")
def discovered(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The lab's own site.yaml, the discovered one, and what discover printed."""
    out = tmp_path_factory.mktemp("discover")
    hostfile = out / "hosts"
    hostfile.write_text("".join(f"{node.name} {node.mgmt_ip}\n" for node in lab.nodes))
    # The lab declares S0's platform (its veths and missing GPUs cannot show it): declared here the same way. Its
    # deployment too: the namespaces stand in for bare-metal nodes but run wherever this machine runs (a KVM guest
    # here, which discovery rightly reads as a guest).
    declared = [f"--platform={key}={LAB_PLATFORM[key]}" for key in ("gpu_vendor", "gpu_model", "nic_vendor", "deployment")]
    argv = [
        "discover", "--hostfile", str(hostfile), "--ssh-user", "root", "--ssh-port", str(SSH_PORT),
        "--ssh-key", str(lab.ssh_key), "--known-hosts", str(lab.known_hosts), "--site", f"lab-{lab.plan.lab_id}",
        "--profile", "lab-linux", *declared, "--thresholds-dir", str(REPO / "thresholds"), "-o", str(out / "site.yaml"),
    ]  # fmt: skip
    code = main(argv)
    assert code == 0
    return lab.write_inventory(out / "lab-site.yaml"), out / "site.yaml", (out / "site.yaml").read_text()


def test_discovered_site_equals_the_lab_generated_one(discovered: tuple[Path, Path, str]) -> None:
    generated, found, text = discovered
    assert sorted_site(found) == sorted_site(generated)
    assert "# name: no RDMA device: named after its interface" not in text  # a comment rides on the value line
    assert "name: benic1p1  # no RDMA device: named after its interface" in text
    assert "pci: ffff:02:00.0  # placeholder: the interface has no PCIe device" in text


def test_the_acceptance_suite_gives_the_healthy_verdicts_with_the_discovered_site(
    discovered: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, found, _ = discovered
    run = run_suite(found, tmp_path / "results", workers=2)
    assert_verdicts_except(run, {})
