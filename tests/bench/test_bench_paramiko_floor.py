"""The plugin's SSH transport against paramiko's floor: the same logins and commands (a round's, on the many-node
loopback target) through ``SshTransport`` and through a bare, equally tuned ``paramiko.Transport``, taking turns in
one run (``tools/paramiko_floor.py``, which also runs 1,024 nodes). CPU of this process per login and per command;
the lowest of the turns of each client is kept (a shared machine). The bounds catch a transport that adds its own
cost on top of paramiko's (a key or ``known_hosts`` read at each login, a polling loop per command): measured
1.12-1.18 x a command, 1.55-1.67 x a login (fabric's ``Connection`` and its configuration, paramiko's ``SSHClient``
around the transport)."""

from __future__ import annotations

from typing import Any

from tools.paramiko_floor import measure

NODES = 16
ROUNDS = 4  # rounds of the nodes' commands on the open connections: 128 commands a client and turn
TURNS = 3
MAX_COMMAND_RATIO = 1.6
MAX_LOGIN_RATIO = 2.5


def _lowest_ms(figures: dict[str, Any], client: str, logins: bool) -> float:
    """The lowest CPU per login (or per command, over all rounds of commands) of the client's turns."""
    per_turn = []
    for run in figures["runs"]:
        if run["client"] == client:
            phases = [done for done in run["phases"] if (done["phase"] == "logins") == logins]
            per_turn.append(sum(done["cpu_s"] for done in phases) * 1000 / sum(done["count"] for done in phases))
    assert len(per_turn) == TURNS, figures
    return min(per_turn)


def test_the_transport_costs_about_what_paramiko_costs(benchmark: Any) -> None:
    figures = benchmark.pedantic(measure, args=(NODES, NODES, TURNS, ROUNDS), rounds=1, iterations=1)
    ratios = {}
    for kind, logins in (("login", True), ("command", False)):
        floor, plugin = _lowest_ms(figures, "paramiko", logins), _lowest_ms(figures, "plugin", logins)
        ratios[kind] = plugin / floor
        benchmark.extra_info[f"{kind}_ms"] = {"paramiko": round(floor, 3), "plugin": round(plugin, 3)}
        print(f"\n{kind}: paramiko {floor:.3f} ms, plugin {plugin:.3f} ms ({plugin / floor:.2f} x)")
    assert ratios["command"] <= MAX_COMMAND_RATIO, figures
    assert ratios["login"] <= MAX_LOGIN_RATIO, figures
