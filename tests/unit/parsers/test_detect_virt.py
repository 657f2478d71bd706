"""systemd-detect-virt, captured on the development host (fixtures/outputs/systemd-detect-virt)."""

from __future__ import annotations

from pytest_gpufabric.parsers.virt import parse_detect_virt


def test_container_and_vm(output) -> None:
    assert parse_detect_virt(output("systemd-detect-virt", "devhost_container.txt")) == "docker"
    assert parse_detect_virt(output("systemd-detect-virt", "devhost_vm.txt")) == "kvm"


def test_anything_but_one_word_is_rejected(parse_error) -> None:
    parse_error(parse_detect_virt, "vmware\nnone\n", "systemd-detect-virt", "expected one word")
    parse_error(parse_detect_virt, "Failed to check for virtualization: Permission denied\n", "expected one word")
