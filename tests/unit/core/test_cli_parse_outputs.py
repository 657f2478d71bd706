"""``gpufabric parse`` over every real output kept under fixtures/outputs: facts (exit 0) or one error line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_gpufabric.cli import main
from tests.outputs import OUTPUTS

# nvidia-smi/ keeps the first captures of the H200 machine under the program's name: each names its parser here.
# Its summary table (h200x2-summary.txt) is read by no check, so no parser exists for it.
TOOL_OF = {"nvidia-smi/h200x2-topo-m.txt": "nvidia-smi-topo", "nvidia-smi/h200x2-q.txt": "nvidia-smi-q-fabric"}
UNPARSED = {"nvidia-smi/h200x2-summary.txt"}
FILES = sorted(path for path in OUTPUTS.glob("*/*") if path.is_file() and path.suffix != ".md"
               and f"{path.parent.name}/{path.name}" not in UNPARSED)


def tool_of(path: Path) -> str:
    return TOOL_OF.get(f"{path.parent.name}/{path.name}", path.parent.name)
AMD_SMI_PARSERS = {"amd-smi-topology", "amd-smi-topology-json", "amd-smi-static", "amd-smi-metric", "amd-smi-json"}


def test_every_output_folder_is_a_parser_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", "--list"]) == 0
    listed = {line.split()[0] for line in capsys.readouterr().out.splitlines()}
    assert AMD_SMI_PARSERS <= listed
    assert {tool_of(path) for path in FILES} <= listed


@pytest.mark.parametrize("path", FILES, ids=[f"{path.parent.name}/{path.name}" for path in FILES])
def test_parse_gives_facts_or_one_error_line(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = tool_of(path)
    code = main(["parse", tool, str(path)])
    captured = capsys.readouterr()
    if code == 0:
        json.loads(captured.out)
        assert not captured.err
    else:
        assert code == 1 and not captured.out
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"gpufabric: cannot parse {tool} output: "), captured.err


@pytest.mark.parametrize("tool, name", [("amd-smi-topology-json", "changelog_new_format_elided.txt"),
                                        ("nvidia-smi-topo", "club3090_issue46_x5_fenced.txt")])
def test_the_command_itself_prints_no_traceback(tool: str, name: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "pytest_gpufabric.cli", "parse", tool, str(OUTPUTS / tool / name)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in proc.stderr
    assert proc.returncode in (0, 1) and len(proc.stderr.strip().splitlines()) <= 1
