"""systemd-detect-virt, captured on the development host (fixtures/outputs/systemd-detect-virt)."""

from __future__ import annotations

from pytest_gpufabric.parsers.virt import parse_detect_virt


def test_container_and_vm(output) -> None:
    assert parse_detect_virt(output("systemd-detect-virt", "devhost_container.txt")).facts == "docker"
    assert parse_detect_virt(output("systemd-detect-virt", "devhost_vm.txt")).facts == "kvm"


def test_anything_but_one_word_is_rejected(parse_error, unread_line) -> None:
    parse_error(parse_detect_virt, "Failed to check for virtualization: Permission denied\n", "expected one word")
    parsed = parse_detect_virt("vmware\nnone\n")
    assert parsed.facts == "vmware"
    unread_line(parsed, "none", "a second line")
