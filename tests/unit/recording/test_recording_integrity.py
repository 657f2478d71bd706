"""Recording files that cannot lie: every node file ends with its integrity line, so one cut short or with a changed
byte is refused in replay naming its file and line; invalid YAML names its line; recordings made before the
integrity line replay as they are and are sealed by ``gpufabric recording seal``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from pytest_gpufabric.cli import main
from pytest_gpufabric.errors import RecordingError
from pytest_gpufabric.recording import RecordingStore
from pytest_gpufabric.recording.integrity import PREFIX
from pytest_gpufabric.recording.meta import META_FILE
from tests.unit.recording.recordkit import result

ETHTOOL = "Settings for eth0:\n\tSpeed: 400000Mb/s\n\tDuplex: Full\n\tLink detected: yes\n"
REPO = Path(__file__).resolve().parents[3]


def recorded(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "rec"
    store = RecordingStore(folder, run_id="r1")
    store.add(result("node01", "ethtool eth0", ETHTOOL), item="t[node01]")
    store.add(result("node01", "uname -r", "6.8.0-49-generic\n"), item="t[node01]")
    store.add(result("node01", "cat /proc/cmdline", "BOOT_IMAGE=/vmlinuz ro iommu=pt\n"), item="t[node01]")
    return folder, folder / "nodes" / "node01.yaml"


def replay_error(folder: Path, command: str = "uname -r") -> str:
    with pytest.raises(RecordingError) as caught:
        RecordingStore(folder).find("node01", command, "t[node01]")
    return str(caught.value)


def test_a_recorded_file_ends_with_its_integrity_line_and_replays(tmp_path: Path) -> None:
    folder, path = recorded(tmp_path)
    text = path.read_text()
    assert text.splitlines()[-1].startswith(f"{PREFIX}sha256=") and text.count("  digest: ") == 3
    assert "integrity: sha256" in (folder / META_FILE).read_text()
    assert RecordingStore(folder).find("node01", "ethtool eth0", "t[node01]").stdout == ETHTOOL


def test_a_file_cut_short_is_refused_with_its_file_and_line(tmp_path: Path) -> None:
    folder, path = recorded(tmp_path)
    text = path.read_text()
    at_entry = text.index("- command: uname -r")  # cut where the rest still reads as YAML: the last line is named
    path.write_text(text[:at_entry])
    message = replay_error(folder, "ethtool eth0")
    assert f"{path}: line {text[:at_entry].count(chr(10))}: the file ends without its integrity line" in message
    path.write_text(text[: len(text) // 2])  # cut in half, inside an output
    assert re.search(rf"{re.escape(str(path))}: (invalid YAML at )?line \d+", replay_error(folder))


def test_a_changed_byte_is_refused_naming_its_entry_and_line(tmp_path: Path) -> None:
    folder, path = recorded(tmp_path)
    text = path.read_text()
    path.write_text(text.replace("400000Mb/s", "400001Mb/s"))
    line = text[: text.index("- command: ethtool eth0")].count("\n") + 1
    message = replay_error(folder)  # another command of the file: the whole file is refused
    assert str(path) in message and f"line {line}: command 'ethtool eth0' was changed after it was recorded" in message


def test_a_cut_inside_a_character_and_invalid_yaml_name_their_line(tmp_path: Path) -> None:
    folder, path = recorded(tmp_path)
    data = "é".join(path.read_text().split("6.8.0", 1)).encode()
    path.write_bytes(data[: data.index("é".encode()) + 1])
    assert "line 1" not in replay_error(folder) and "not UTF-8 text" in replay_error(folder)
    folder, path = recorded(tmp_path / "yaml")
    lines = path.read_text().splitlines()
    broken = next(number for number, line in enumerate(lines) if line.startswith("  episodes:"))
    lines[broken] = "  episodes: [unclosed"
    path.write_text("\n".join(lines[:-1]) + "\n")  # without its integrity line too: its YAML is read for the line
    (folder / META_FILE).write_text((folder / META_FILE).read_text().replace("integrity: sha256\n", ""))
    assert f"{path}: invalid YAML at line {broken + 2}" in replay_error(folder, "cat /proc/cmdline")


def test_an_invalid_recording_yaml_names_its_line(tmp_path: Path) -> None:
    folder, _ = recorded(tmp_path)
    (folder / META_FILE).write_text("format: gpufabric-recording\nversion: [1\n")
    assert "invalid YAML at line 3" in replay_error(folder)


def test_a_recording_made_before_integrity_lines_replays_and_is_sealed_by_the_project_tool(tmp_path: Path,
                                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "demo"
    shutil.copytree(REPO / "tests" / "unit" / "recording" / "data" / "unsealed", folder)
    before = RecordingStore(folder).find("node01", "uname -r", "t[node01]")
    assert main(["recording", "check", str(folder)]) == 0 and "not sealed" in capsys.readouterr().out
    assert main(["recording", "seal", str(folder)]) == 0
    assert "integrity: sha256" in (folder / META_FILE).read_text()
    assert RecordingStore(folder).find("node01", "uname -r", "t[node01]") == before
    assert main(["recording", "check", str(folder)]) == 0
    path = folder / "nodes" / "node01.yaml"
    path.write_text(path.read_text().replace("6.8.0", "6.9.0"))
    assert main(["recording", "check", str(folder)]) == 1
    assert "was changed after it was recorded" in capsys.readouterr().err
