"""The parsing rule (parsers/reading.py, parsers/tables.py): unread lines with their numbers, refusal only when
nothing is understood, tables split by their header's positions, control characters replaced and noted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.dmesg import parse_dmesg
from pytest_gpufabric.parsers.reading import Line, Parsed, Reading, Unfit, count, decimal, integer
from pytest_gpufabric.parsers.tables import dash_tables, header_from_dashes, header_from_names
from pytest_gpufabric.parsers.textutil import control_character_notes
from tests.outputs import read_output
from tests.variants import END, assert_never_misread, fused_row, same_facts_variants, shifted_row, tabs_for_spaces

SETTINGS = """\

mtu 9214
speed 400g
mtu nine-thousand
hostname leaf1
"""


def read_settings(text: str) -> Parsed[dict[str, int]]:
    """A tiny parser following the rule: ``mtu N`` gives a fact, ``hostname`` is outside its subject."""
    reading = Reading("settings", text)
    found: dict[str, int] = {}
    for line in reading.content():
        words = line.stripped.split()
        if words[0] == "hostname":
            reading.known(line)
        elif words[0] == "mtu":
            with reading.row(line, scope="Ethernet1"):
                found["mtu"] = integer(words[1], "mtu")
    return reading.done(found)


def test_unknown_and_unfit_lines_are_kept_with_their_numbers_and_reasons() -> None:
    parsed = read_settings(SETTINGS)
    assert parsed.facts == {"mtu": 9214}
    assert [(u.line, u.reason, u.scope) for u in parsed.unread] == [
        (3, "not recognized", ""), (4, "mtu: expected a whole number, found 'nine-thousand'", "Ethernet1")]
    assert parsed.unread[1].describe() == "line 4: 'mtu nine-thousand' (mtu: expected a whole number, found 'nine-thousand')"


def test_unread_lines_of_a_scope_are_its_own_and_those_of_no_scope() -> None:
    parsed = read_settings(SETTINGS)
    assert [u.line for u in parsed.unread_for(("Ethernet2",))] == [3]
    assert [u.line for u in parsed.unread_for(("Ethernet1",))] == [3, 4]


def test_an_output_is_refused_only_when_nothing_in_it_is_understood() -> None:
    with pytest.raises(ParseError, match=r"nothing in it is understood \(line 1: '% Invalid input' \(not recognized\)"):
        read_settings("% Invalid input\n")
    with pytest.raises(ParseError, match="empty output"):
        read_settings(" \n\n")
    assert read_settings("% Invalid input\nmtu 1500\n").facts == {"mtu": 1500}


def test_a_refused_line_leaves_no_fact_behind() -> None:
    assert read_settings("mtu 1500\nmtu 15x0\n").facts == {"mtu": 1500}


def test_a_prompt_left_at_the_end_is_known() -> None:
    assert read_settings("mtu 9000\nadmin@leaf1:~$ \n").unread == ()


def test_control_characters_are_replaced_and_noted_and_the_rest_is_read() -> None:
    parsed = read_settings("mtu 9214\nhost\x07name leaf1\n")
    assert parsed.facts == {"mtu": 9214}
    assert parsed.notes == ("1 control character(s) replaced by U+FFFD before parsing: '\\x07' at line 2 column 5",)
    assert parsed.unread[0].text == "host\ufffdname leaf1"


def test_a_nul_byte_is_a_binary_output() -> None:
    with pytest.raises(ParseError, match="binary data"):
        read_settings("mtu 9214\x00\n")


def test_control_character_notes_number_lines_as_parsers_do() -> None:
    notes = control_character_notes("a\r\nb\x1b[0m\x08c\x07\x07\x07\n")
    assert notes == ["4 control character(s) replaced by U+FFFD before parsing: '\\x08' at line 2 column 2, "
                     "'\\x07' at line 2 column 4, '\\x07' at line 2 column 5 and 1 more"]
    assert control_character_notes("plain\ttext\r\n") == []


def test_dmesg_with_control_characters_still_gives_its_other_lines() -> None:
    text = read_output("dmesg", "s0_bnxt_re_setets.txt")
    lines = text.split("\n")
    lines[0] = lines[0][:10] + "\x07\x1b" + lines[0][10:]
    damaged = parse_dmesg("\n".join(lines)).facts
    clean = parse_dmesg(text).facts
    assert len(damaged.lines) == len(clean.lines)
    assert damaged.lines[1:] == clean.lines[1:]
    assert "\ufffd" in damaged.lines[0].text or damaged.lines[0].timestamp is None


@pytest.mark.parametrize(("text", "value"), [("1,200", 1200), ("0", 0), (" 42 ", 42), ("12,000,000", 12000000)])
def test_whole_numbers(text: str, value: int) -> None:
    assert integer(text, "x") == value


@pytest.mark.parametrize("text", ["1,20", "12,0000", "-3", "3.5", "", "١٢", "0x10"])
def test_not_whole_numbers(text: str) -> None:
    with pytest.raises(Unfit, match="x: expected a whole number"):
        integer(text, "x")


def test_counters_and_decimals() -> None:
    assert [count(cell, "c") for cell in ("N/A", "-", "7")] == [None, None, 7]
    with pytest.raises(Unfit, match="c: empty cell"):
        count(" ", "c")
    assert decimal("0.25", "d") == 0.25
    with pytest.raises(Unfit):
        decimal("nan", "d")


# ---------------------------------------------------------------- tables

TABULATE = """\
  Port Rx    PFC0    PFC1    PFC2
---------  ------  ------  ------
Ethernet0   1,200     201     202
Ethernet4     N/A     401     402
"""


def table_lines(text: str) -> list[Line]:
    return [Line(n, raw) for n, raw in enumerate(text.split("\n"), 1)]


def test_dash_underlined_columns_split_rows_by_position() -> None:
    lines = table_lines(TABULATE)
    header = header_from_dashes(lines[0], lines[1])
    assert header.names == ("Port Rx", "PFC0", "PFC1", "PFC2")
    assert header.cells(lines[2]) == {"Port Rx": "Ethernet0", "PFC0": "1,200", "PFC1": "201", "PFC2": "202"}


def test_a_fused_cell_is_refused() -> None:
    lines = table_lines(TABULATE)
    header = header_from_dashes(lines[0], lines[1])
    with pytest.raises(Unfit, match=r"fused cell '1,200201' at column 18 spans PFC0 and PFC1"):
        header.cells(Line(3, fused_row(lines[2].text, 1)))


def test_a_cell_under_no_column_is_refused() -> None:
    lines = table_lines(TABULATE)
    header = header_from_dashes(lines[0], lines[1])
    with pytest.raises(Unfit, match=r"'9' at column 11 runs out of column PFC0"):
        header.cells(Line(3, "Ethernet0 9  1,200     201     202"))
    header = header_from_names(Line(1, "Port          RxPfc   TxPfc"))
    with pytest.raises(Unfit, match=r"'7' at column 9 is under no column"):
        header.cells(Line(2, "Et1/1   7           0       3"))


def test_tabs_at_eight_column_stops_split_like_spaces() -> None:
    header = header_from_names(Line(1, tabs_for_spaces("Port          RxPfc   TxPfc", [True])))
    row = Line(2, "Ethernet1/1       0       3")
    tabbed = Line(2, tabs_for_spaces(row.text, [True]))
    assert "\t" in tabbed.text and header.cells(tabbed) == header.cells(row) == {"Port": "Ethernet1/1", "RxPfc": "0", "TxPfc": "3"}


def test_header_words_with_names_of_several_words_and_touching_cells() -> None:
    header = header_from_names(Line(1, "        GPU0\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"),
                               ["CPU Affinity", "NUMA Affinity", "GPU NUMA ID"], leading="device")
    assert header.names == ("device", "GPU0", "NIC0", "CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
    row = Line(2, "GPU0\t X \tNODE\t112-127,240-255\t7\t\tN/A")  # the affinity runs up to the next tab stop
    assert header.cells(row) == {"device": "GPU0", "GPU0": "X", "NIC0": "NODE", "CPU Affinity": "112-127,240-255",
                                 "NUMA Affinity": "7", "GPU NUMA ID": "N/A"}
    with pytest.raises(Unfit, match="fused cell 'NODENODE'"):
        header.cells(Line(3, "GPU1\t X \tNODENODE"))


def test_the_last_column_is_open_on_the_right() -> None:
    header = header_from_names(Line(1, "Port   Status   Description"))
    assert header.cells(Line(2, "Et1    up       to node01 rail 0 (bnxt_re0)"))["Description"] == "to node01 rail 0 (bnxt_re0)"


def test_tables_of_a_reading_leave_their_rows_to_the_parser() -> None:
    reading = Reading("t", "For namespace asic0:\n" + TABULATE + "\n" + TABULATE)
    tables = dash_tables(reading)
    assert [len(t.rows) for t in tables] == [2, 2]
    assert [line.number for line in reading.content()] == [1, 4, 5, 9, 10]  # banner and rows: not read yet


# ---------------------------------------------------------------- the variant helpers themselves


@given(which=st.lists(st.booleans(), min_size=1, max_size=6))
def test_tabs_for_spaces_keeps_every_column(which: list[bool]) -> None:
    for line in TABULATE.splitlines():
        assert tabs_for_spaces(line, which).expandtabs(8) == line


@given(variant=same_facts_variants(TABULATE, insert_at=(0, END)))
@settings(max_examples=60, deadline=None)
def test_variants_give_the_same_cells(variant: str) -> None:
    def cells(text: str) -> list[dict[str, str]]:
        reading = Reading("t", text)
        return [t.header.cells(row) for t in dash_tables(reading) for row in t.rows if t.header.fits(row)]

    assert cells(variant) == cells(TABULATE)


def test_shifted_row_keeps_the_other_cells_in_place() -> None:
    row = "Ethernet0   1,200     201     202"
    assert shifted_row(row, 2, -3) == "Ethernet0   1,200  201        202"
    assert shifted_row(row, 2, 30) == "Ethernet0   1,200        201  202"  # stops short of its neighbour


def test_never_misread_compares_values_not_absence() -> None:
    assert_never_misread({"a": 1, "b": [1, 2]}, {"a": 1, "b": [2], "c": None})
    with pytest.raises(AssertionError, match="a: 2 read, 1 in the original"):
        assert_never_misread({"a": 1}, {"a": 2})
