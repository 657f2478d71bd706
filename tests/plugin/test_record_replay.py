"""Record a live run (local transport: real commands on this machine), then replay it offline."""

from __future__ import annotations

import pytest
from sitekit import Site


@pytest.fixture
def local_site(site: Site) -> Site:
    site.data["transport"] = "local"
    site.data["nodes"] = site.data["nodes"][:1]
    site.data["nodes"][0]["nics"][0]["netdev"] = "lo"  # exists everywhere; its MTU is not 9000
    return site


def outcomes(site: Site) -> dict[str, tuple[str, object]]:
    return {r["node_id"]: (r["outcome"], r["measured"]) for r in site.results()}


def test_record_then_replay_gives_the_same_verdicts(local_site: Site) -> None:
    live = local_site.run("--record", str(local_site.recording))
    assert live.ret in (0, 1)
    recorded = outcomes(local_site)
    assert recorded["test_checks.py::test_mtu[node01/bnxt_re0]"][0] == "failed"  # lo has MTU 65536
    node_file = (local_site.recording / "nodes" / "node01.yaml").read_text()
    assert "cat /proc/sys/kernel/numa_balancing" in node_file and "ip -o link show dev lo" in node_file

    replayed = local_site.run("--replay", str(local_site.recording))
    assert replayed.ret == live.ret
    assert outcomes(local_site) == recorded


def test_once_mode_replays_an_existing_recording_and_refuses_new_commands(local_site: Site) -> None:
    local_site.record({"node01": {"cat /proc/sys/kernel/numa_balancing": "0\n"}})
    result = local_site.run("--record", str(local_site.recording), "--record-mode", "once")
    result.assert_outcomes(passed=1, errors=1)
    mtu = {r["node_id"]: r for r in local_site.results()}["test_checks.py::test_mtu[node01/bnxt_re0]"]
    assert mtu["outcome"] == "error" and "ip -o link show dev lo" in mtu["message"]


def test_new_episodes_mode_records_what_is_missing(local_site: Site) -> None:
    local_site.record({"node01": {"cat /proc/sys/kernel/numa_balancing": "0\n"}})
    local_site.run("--record", str(local_site.recording), "--record-mode", "new_episodes")
    assert "ip -o link show dev lo" in (local_site.recording / "nodes" / "node01.yaml").read_text()
    replayed = local_site.run("--replay", str(local_site.recording))
    replayed.assert_outcomes(passed=1, failed=1)


def test_replay_of_a_missing_recording_errors_every_item_clearly(local_site: Site) -> None:
    result = local_site.run("--replay", str(local_site.pytester.path / "nowhere"))
    result.assert_outcomes(errors=2)
    assert all(r["outcome"] == "error" for r in local_site.results())
    assert "no recording at" in result.stdout.str()
