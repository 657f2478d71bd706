"""The acceptance plugin over real SSH: an unreachable node errors at setup, the rest of the run goes on."""

from __future__ import annotations

from loopback_sshd import LoopbackSshd, free_port
from sitekit import Site


def test_unreachable_node_errors_and_the_reachable_one_is_judged(site: Site, sshd: LoopbackSshd) -> None:
    ssh = {"user": "root", "key": str(sshd.client_key), "known_hosts": str(sshd.known_hosts), "connect_timeout_s": 3}
    site.data["defaults"]["ssh"] = ssh
    site.data["nodes"][0].update(address="127.0.0.1", ssh={"port": sshd.port})
    site.data["nodes"][1].update(address="127.0.0.2", ssh={"port": free_port()})  # nothing listens there
    site.data["nodes"][0]["nics"][0]["netdev"] = "lo"
    result = site.run("-rA")
    result.assert_outcomes(passed=1, failed=1, errors=2)  # node01: real verdicts; node02: setup errors
    out = result.stdout.str()
    assert "node02: unreachable" in out
    records = {r["node_id"]: r for r in site.results()}
    assert records["test_checks.py::test_numa[node02]"]["outcome"] == "error"
    assert records["test_checks.py::test_mtu[node01/bnxt_re0]"]["measured"] == 65536
