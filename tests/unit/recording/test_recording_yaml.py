"""The node-file text: exact round trips, readable literal blocks, and clear reasons for bad files."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_gpufabric.recording.nodefile import (
    Episode,
    NodeFileInvalid,
    index_node_file,
    parse_node_file,
    render_node_file,
)
from pytest_gpufabric.recording.yamltext import scalar

LOADERS = [yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)]

# ethtool prints its settings with tab indentation (as in S0, Broadcom AN209 Thor2 guide).
ETHTOOL = "Settings for benic1p1:\n\tSupported ports: [ FIBRE ]\n\tSpeed: 400000Mb/s\n\tDuplex: Full\n"


def episode(stdout: str, *, item: str | None = "t::a", run_id: str | None = "r1", exit_code: int = 0) -> Episode:
    return Episode(exit_code=exit_code, duration_s=0.25, item=item, run_id=run_id, stdout=stdout, stderr="")


@settings(max_examples=400, deadline=None)
@given(st.text(), st.integers(min_value=0, max_value=12))
def test_any_text_reads_back_exactly_with_both_yaml_loaders(text: str, indent: int) -> None:
    # the value of a key indented by `indent` spaces, inside a mapping of that many levels
    document = "".join(f"{' ' * level}k:\n" for level in range(indent)) + f"{' ' * indent}k: {scalar(text, indent)}\n"
    for loader in LOADERS:
        value = yaml.load(document, Loader=loader)
        for _ in range(indent + 1):
            value = value["k"]
        assert value == text


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(min_size=1), st.lists(st.text(), min_size=1, max_size=3), max_size=4))
def test_any_node_file_reads_back_exactly(outputs: dict[str, list[str]]) -> None:
    commands = {command: tuple(episode(text) for text in texts) for command, texts in outputs.items()}
    assert parse_node_file(render_node_file("node01", commands), "node01") == commands


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.text(min_size=1), st.lists(st.text(), min_size=1, max_size=3), min_size=1, max_size=4))
def test_the_index_of_a_node_file_finds_what_a_whole_read_finds(outputs: dict[str, list[str]]) -> None:
    commands = {command: tuple(episode(text) for text in texts) for command, texts in outputs.items()}
    index = index_node_file(render_node_file("node01", commands), "node01")
    assert index is not None
    assert sorted(index.commands()) == sorted(commands) and all(command in index for command in commands)
    assert {command: index.episodes(command) for command in commands} == commands


@pytest.mark.parametrize("text", [
    "node: node01\ncommands:\n  - command: uptime\n    episodes: []\n",  # entries indented: read whole
    "node: node01\ncommands: []\n",
    "# comment\nnode: node01\ncommands:\n- command: uptime\n  episodes: []\n",
])
def test_other_layouts_are_left_to_the_whole_read(text: str) -> None:
    assert index_node_file(text, "node01") is None


def test_a_bad_entry_is_refused_when_asked_for_with_its_line_in_the_file() -> None:
    text = GOOD + render_node_file("node01", {"zz": (episode("z\n"),)}).split("commands:\n", 1)[1].replace(
        "exit_code: 0", "exit_code: [")
    index = index_node_file(text, "node01")
    assert index is not None and index.episodes("uptime") == (episode("up\n"),)
    with pytest.raises(NodeFileInvalid, match="invalid YAML at line 1[0-9]"):
        index.episodes("zz")
    with pytest.raises(NodeFileInvalid, match="'node' is 'node02', expected 'node01'"):
        index_node_file(GOOD.replace("node: node01", "node: node02"), "node01")
    with pytest.raises(NodeFileInvalid, match="command 'uptime' is listed twice"):
        index_node_file(GOOD + GOOD.split("commands:\n", 1)[1], "node01")


def test_multi_line_output_is_a_literal_block_with_its_tabs() -> None:
    text = render_node_file("node01", {"ethtool benic1p1": (episode(ETHTOOL),)})
    assert text == (
        "node: node01\n"
        "commands:\n"
        "- command: ethtool benic1p1\n"
        "  digest: '393f9aaa0001a2f9'\n"  # of the command and its episodes (recording.integrity)
        "  episodes:\n"
        "  - exit_code: 0\n"
        "    duration_s: 0.250\n"
        "    item: t::a\n"
        "    run_id: r1\n"
        "    stdout: |\n"
        "      Settings for benic1p1:\n"
        "      \tSupported ports: [ FIBRE ]\n"
        "      \tSpeed: 400000Mb/s\n"
        "      \tDuplex: Full\n"
        "    stderr: ''\n"
    )


@pytest.mark.parametrize(
    ("stdout", "style"),
    [
        ("\tfirst line starts with a tab\n", "|2"),
        ("no final line break\nsecond", "|-"),
        ("two final breaks\n\n", "|+"),
        ("padded column   \nnext\n", '"padded column   \\nnext\\n"'),
        ("carriage\r\nreturn\r\n", '"carriage\\r\\nreturn\\r\\n"'),
    ],
)
def test_block_style_follows_the_text_and_trailing_blanks_are_quoted(stdout: str, style: str) -> None:
    text = render_node_file("node01", {"cmd": (episode(stdout),)})
    assert f"    stdout: {style}" in text
    assert parse_node_file(text, "node01")["cmd"][0].stdout == stdout


def test_commands_are_sorted_and_episodes_keep_their_order() -> None:
    commands = {"uptime": (episode("b\n"), episode("a\n")), "hostname": (episode("node01\n"),)}
    text = render_node_file("node01", commands)
    assert text.index("command: hostname") < text.index("command: uptime")
    assert [e.stdout for e in parse_node_file(text, "node01")["uptime"]] == ["b\n", "a\n"]


GOOD = render_node_file("node01", {"uptime": (episode("up\n"),)})


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("node: node01\ncommands: [\n", "invalid YAML at line 3"),
        ("- just a list\n", "expected a mapping with 'node' and 'commands'"),
        (GOOD.replace("node: node01", "node: node02"), "'node' is 'node02', expected 'node01'"),
        ("node: node01\ncommands: {}\n", "'commands' must be a list"),
        ("node: node01\ncommands:\n- episodes: []\n", "commands entry 1 has no 'command' text"),
        ("node: node01\ncommands:\n- command: uptime\n  episodes: []\n", "command 'uptime' has no 'episodes' list"),
        (GOOD.replace("    stderr: ''\n", ""), "command 'uptime' episode 1 lacks stderr"),
        (GOOD.replace("exit_code: 0", "exit_code: zero"), "exit_code must be an integer, found 'zero'"),
        (GOOD.replace("duration_s: 0.250", "duration_s: .nan"), "duration_s must be a number"),
        (GOOD.replace("item: t::a", "item: [1]"), "item must be text or null"),
        (GOOD.replace("stdout: |\n      up\n", "stdout: 12\n"), "stdout must be text, found int"),
        (GOOD + GOOD.split("commands:\n", 1)[1], "command 'uptime' is listed twice"),
    ],
)
def test_a_bad_node_file_is_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(NodeFileInvalid) as caught:
        parse_node_file(text, "node01")
    assert reason in str(caught.value)
    assert "\n" not in str(caught.value)
