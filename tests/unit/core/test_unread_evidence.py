"""Lines a parser did not understand reach the item's evidence (results record, HTML text, Allure attachment), and a
missing value names the unread lines that could hold it; control characters are noted."""

from __future__ import annotations

import pytest

from pytest_gpufabric.catalog import load_catalog
from pytest_gpufabric.context import CheckContext
from pytest_gpufabric.errors import MeasurementMissing
from pytest_gpufabric.expectations import Profile
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.sonic_show import parse_pfc_counters
from pytest_gpufabric.reporting.evidence import _raw_outputs, evidence_data
from pytest_gpufabric.transport.base import CommandResult

PFC = """\
  Port Rx    PFC0    PFC1
---------  ------  ------
Ethernet0       0       7
Ethernet4   0 1       9
"""


def context(stdout: str, command: str = "show pfc counters") -> CheckContext:
    result = CommandResult("leaf3", command, stdout, "", 0, 0.0)
    return CheckContext(load_catalog().get("SW-007"), "leaf3/Ethernet4", Profile("p", "p", {}, {}, {}),
                        lambda *_: result)


def test_unread_lines_are_evidence_with_node_command_line_and_reason() -> None:
    gpufabric = context(PFC)
    facts = gpufabric.parse(parse_pfc_counters, gpufabric.run("leaf3", "show pfc counters"))
    assert facts["Ethernet0"].pfc_rx_priorities == {0: 0, 1: 7} and "Ethernet4" not in facts
    data = evidence_data(gpufabric)
    assert data["unread"] == [{"node": "leaf3", "command": "show pfc counters", "line": 4, "text": "Ethernet4   0 1       9",
                               "reason": "PFC0: expected a whole number, found '0 1'", "scope": "Ethernet4"}]
    text = _raw_outputs(gpufabric)
    assert "[not understood: 1 line(s), their facts are not read]\n  line 4: Ethernet4   0 1       9" in text


def test_a_missing_value_names_the_unread_lines_of_its_scope() -> None:
    gpufabric = context(PFC)
    facts = gpufabric.parse(parse_pfc_counters, gpufabric.run("leaf3", "show pfc counters"))
    with pytest.raises(MeasurementMissing, match=r"PFC frames of Ethernet4 could not be measured; unread lines that "
                       r"could hold it: leaf3 `show pfc counters` line 4: 'Ethernet4   0 1       9'"):
        gpufabric.require(facts.get("Ethernet4"), "PFC frames of Ethernet4", scopes=("Ethernet4",))
    with pytest.raises(MeasurementMissing) as caught:
        gpufabric.require(None, "PFC frames of Ethernet8", scopes=("Ethernet8",))
    assert "unread" not in str(caught.value)  # the unread row is another port's


def test_a_focus_narrows_what_a_judged_none_names() -> None:
    gpufabric = context(PFC)
    gpufabric.parse(parse_pfc_counters, gpufabric.run("leaf3", "show pfc counters"))
    gpufabric.focus(("Ethernet0",))
    assert gpufabric.unread_that_could_hold() == []
    gpufabric.focus(("Ethernet4",))
    assert [u.unread.line for u in gpufabric.unread_that_could_hold()] == [4]


def test_control_characters_of_any_parsers_output_are_noted() -> None:
    gpufabric = context("[    1.000000] bnxt_en 0000:05:00.0 eth0: Broadcom\x07 NIC\n[    2.000000] second line\n", "dmesg")
    log = gpufabric.parse(parse_dmesg, gpufabric.run("node01", "dmesg"))
    assert [line.text for line in log.lines] == ["bnxt_en 0000:05:00.0 eth0: Broadcom\ufffd NIC", "second line"]
    assert evidence_data(gpufabric)["notes"] == [
        "leaf3 `dmesg`: 1 control character(s) replaced by U+FFFD before parsing: '\\x07' at line 1 column 51"]
    assert "[notes]\n  1 control character(s) replaced" in _raw_outputs(gpufabric)
