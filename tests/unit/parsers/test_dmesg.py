from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.dmesg import parse_dmesg

# Patterns of the kind a profile lists for HOST-004 / QOS-006 (the tests own them, the parser does not).
DRIVER_ERRORS = (r"bnxt_re\d*: Fail to", r"NVRM: Xid", r"amdgpu.*\berror\b", r"disagrees about version of symbol")


def test_qos_failure_lines_without_timestamps(output) -> None:
    log = parse_dmesg(output("dmesg", "s0_bnxt_re_setets.txt")).facts
    matches = log.matching(DRIVER_ERRORS)
    assert [m.line.text for m in matches] == [
        "infiniband bnxt_re2: Fail to setets rc:-22", "infiniband bnxt_re2: Fail to initialize Flow control"]
    assert all(m.line.timestamp is None for m in matches)


def test_driver_versions_with_timestamps(output) -> None:
    log = parse_dmesg(output("dmesg", "s1_bnxt_versions_wrapped.txt")).facts
    assert log.lines[0].timestamp == 20.495025
    assert log.lines[1].text == "nel"  # the document wrapped "tainting kernel"; kept as its own line
    assert [m.line.timestamp for m in log.matching([r"bnxt_(en|re) v\d"])] == [21.359611, 25.820937]
    assert log.matching(DRIVER_ERRORS) == ()


def test_nvidia_lines_of_a_healthy_host(output) -> None:
    log = parse_dmesg(output("dmesg", "h200_grep_nvidia.txt")).facts
    assert len(log.lines) == 6
    assert log.matching(DRIVER_ERRORS) == ()
    assert len(log.matching([r"^NVRM:"])) == 4


def test_invalid_pattern_is_reported(output) -> None:
    log = parse_dmesg(output("dmesg", "h200_grep_nvidia.txt")).facts
    with pytest.raises(ValueError, match="invalid dmesg pattern"):
        log.matching(["(unclosed"])


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("[ 12.3 bnxt_en: link up\n", "malformed timestamp")],
    ids=["empty", "broken-timestamp"],
)
def test_malformed_dmesg(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_dmesg, text, "dmesg", fragment)
