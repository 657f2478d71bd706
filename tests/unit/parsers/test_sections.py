"""The framing of the plugin's node scripts: a program's output is never read as another's."""

from __future__ import annotations

import subprocess

import pytest

from pytest_gpufabric.checks.mesh_commands import SourceProbes, ping_mesh_command, ssh_mesh_command
from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.sections import parse_sections


def test_sections_in_order_with_label_status_and_lines() -> None:
    text = ("@@gpufabric fping 10.0.0.1 exit=1 lines=2\na : xmt\n@@gpufabric fake exit=0 lines=7\n"
            "@@gpufabric ssh 10.0.0.2 exit=255 lines=0\n")
    found = parse_sections(text)
    assert [(s.label, s.exit_code, s.lines) for s in found.sections] == [
        (("fping", "10.0.0.1"), 1, ("a : xmt", "@@gpufabric fake exit=0 lines=7")),  # a body line is only a body line
        (("ssh", "10.0.0.2"), 255, ())]
    assert found.unread == ()


def test_a_cut_section_and_stray_lines_are_not_understood() -> None:
    found = parse_sections("noise\n@@gpufabric ping a b exit=0 lines=1\nline\n@@gpufabric ping c d exit=0 lines=3\nx\n")
    assert [s.label for s in found.sections] == [("ping", "a", "b")]
    assert found.unread == ((1, "noise"), (4, "@@gpufabric ping c d exit=0 lines=3"), (5, "x"))
    with pytest.raises(ParseError):
        parse_sections("")


@pytest.mark.parametrize("has_fping", [True, False])
def test_the_node_scripts_frame_what_they_run(has_fping: bool) -> None:
    """The real script in a real bash (loopback only): every probe gets its section, in order, fping or ping."""
    command = ping_mesh_command([SourceProbes("127.0.0.1", ("127.0.0.2", "127.0.0.3")), SourceProbes("127.0.0.4", ())])
    if not has_fping:
        command = command.replace("command -v fping", "command -v no-fping-here")
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60, check=False)
    found = parse_sections(done.stdout)
    assert found.unread == ()
    if has_fping:
        assert [s.label for s in found.sections] == [("fping", "127.0.0.1"), ("fping", "127.0.0.4")]
    else:
        assert [s.label for s in found.sections] == [("ping", "127.0.0.1", "127.0.0.2"), ("ping", "127.0.0.1", "127.0.0.3")]
    peers = parse_sections(subprocess.run(["bash", "-c", ssh_mesh_command(["127.0.0.1"]).replace("-- ssh ", "-- false ")],
                                          capture_output=True, text=True, timeout=60, check=False).stdout)
    assert [(s.label, s.exit_code) for s in peers.sections] == [(("ssh", "127.0.0.1"), 1)]
