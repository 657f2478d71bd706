"""Every registered parser turns bad input into ParseError, never into another exception."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.outputs import OUTPUTS, read_output
from pytest_gpufabric.errors import ParseError
from pytest_gpufabric.parsers.all import MODULES
from pytest_gpufabric.parsers.registry import PARSERS, ParserInfo, to_plain

OWN_MODULES = {module.__name__ for module in MODULES}
PARSER_INFOS = [info for info in PARSERS.tools() if info.func.__module__ in OWN_MODULES]
IDS = [info.tool for info in PARSER_INFOS]

# Text from the alphabet of tool outputs, so that the parsers' inner branches are exercised.
TOOL_ALPHABET = st.sampled_from(list("0123456789abcdefABCDEF:.,-+=/ \t\n()[]<>#%xX|") + ["GT/s", "Speed ", "mtu ",
                                "inet ", "lookup ", "from ", "default via ", "Link ", "GPU", "NV", " X ", ": "])


@pytest.mark.parametrize("info", PARSER_INFOS, ids=IDS)
@pytest.mark.parametrize("text", ["", " \n\t\n", "\r\n"], ids=["empty", "whitespace", "crlf"])
def test_empty_output_is_a_parse_error(info: ParserInfo, text: str) -> None:
    with pytest.raises(ParseError, match="empty output|no output"):
        info.func(text)


@pytest.mark.parametrize("info", PARSER_INFOS, ids=IDS)
@given(garbage=st.binary(min_size=1, max_size=300))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_binary_garbage_is_a_parse_error(info: ParserInfo, garbage: bytes) -> None:
    text = (garbage + b"\x00").decode("latin-1")
    with pytest.raises(ParseError):
        info.func(text)


@pytest.mark.parametrize("info", PARSER_INFOS, ids=IDS)
@given(text=st.lists(TOOL_ALPHABET, max_size=80).map("".join))
@settings(max_examples=150, deadline=None)
def test_arbitrary_text_raises_nothing_but_parse_error(info: ParserInfo, text: str) -> None:
    try:
        info.func(text)
    except ParseError:
        pass


def test_registry_lists_the_configuration_parsers() -> None:
    assert {"proc-cmdline", "proc-sys-value", "sysctl", "lspci-vvv", "sysfs-pci-path", "ip-link", "ip-addr",
            "ip-rule", "ip-route"} <= set(IDS)


OUTPUT_DIRS = sorted(path for path in OUTPUTS.iterdir() if path.is_dir() and path.name in IDS)


def test_every_output_folder_names_a_registered_parser() -> None:
    own = {info.tool for info in PARSER_INFOS}
    folders = {path.name for path in OUTPUTS.iterdir() if path.is_dir()}
    assert own <= folders, f"parsers without real outputs: {sorted(own - folders)}"


@pytest.mark.parametrize("folder", OUTPUT_DIRS, ids=[path.name for path in OUTPUT_DIRS])
def test_real_outputs_give_json_facts_or_a_parse_error(folder) -> None:
    func = PARSERS.get(folder.name).func
    parsed = 0
    for path in sorted(folder.iterdir()):
        try:
            facts = func(read_output(folder.name, path.name))
        except ParseError:
            continue
        json.dumps(to_plain(facts))
        parsed += 1
    assert parsed, f"no output in {folder.name}/ parses"
