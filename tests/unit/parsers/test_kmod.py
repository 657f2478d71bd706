"""modinfo, lsmod, dkms status and /proc/kallsyms."""

from __future__ import annotations

import pytest

from pytest_gpufabric.parsers.kallsyms import parse_kallsyms
from pytest_gpufabric.parsers.kmod import parse_dkms_status, parse_lsmod, parse_modinfo


@pytest.mark.parametrize(
    ("name", "version", "kernel", "depends"),
    [
        ("s1_grep_ver_bnxt_en.txt", "1.10.3-234.0.154.0", "5.15.0-143-generic", ()),
        ("s1_grep_ver_bnxt_re.txt", "234.0.154.0", "5.15.0-143-generic", ("ib_core", "ib_uverbs", "bnxt_en", "mlx_compat")),
        ("s1_grep_ver_nvidia_peermem.txt", "570.133.20", "5.15.0-143-generic", ("nvidia", "ib_uverbs")),
    ],
    ids=["bnxt_en", "bnxt_re", "nvidia-peermem"],
)
def test_modinfo(output, name: str, version: str, kernel: str, depends: tuple[str, ...]) -> None:
    info = parse_modinfo(output("modinfo", name)).facts
    assert (info.version, info.vermagic_kernel, info.depends) == (version, kernel, depends)


def test_modinfo_module_not_found(output, parse_error) -> None:
    parse_error(parse_modinfo, output("modinfo", "s1_module_not_found.txt"), "Module ib_peer_mem not found")


def test_modinfo_repeated_fields() -> None:
    info = parse_modinfo("filename:       /lib/modules/x/bnxt_re.ko\nalias:          pci:v000014E4d00001760sv*\nalias:          pci:v000014E4d000016D6sv*\n").facts
    assert len(info.fields["alias"]) == 2 and info.version is None


def test_lsmod(output) -> None:
    modules = parse_lsmod(output("lsmod", "rxe_dev_issue75_softroce.txt")).facts
    assert len(modules.modules) == 7
    core = modules.get("ib_core")
    assert (core.size, core.used_count) == (192512, 6) and "rdma_rxe" in core.used_by
    assert modules.get("ib-uverbs").used_by == ("rdma_ucm",)  # dashes and underscores are the same name
    assert modules.get("bnxt_re") is None


def test_lsmod_ocr_damaged_document_copy(output, unread_line) -> None:
    """A document's OCR (a count read as '©', a line cut before its count): those modules' lines are unread, and
    their absence is not known (``may_hold``); the other modules are read."""
    parsed = parse_lsmod(output("lsmod", "s1_grep_ocr.txt"))
    unread_line(parsed, "nvidia_drm 110592", "expected '<module> <size> <use count>")
    unread_line(parsed, "nvidia_peermem 16384 ©")
    modules = parsed.facts
    assert modules.get("nvidia").used_count == 96 and modules.get("bnxt_en").used_by == ("bnxt_re",)
    assert modules.get("nvidia_peermem") is None and modules.may_hold("nvidia_peermem") and not modules.may_hold("gdrdrv")


def test_dkms_status_with_wrapped_remark(output) -> None:
    entries = parse_dkms_status(output("dkms-status", "s1_wrapped.txt")).facts.entries
    assert len(entries) == 6
    assert {(e.module, e.kernel) for e in entries if e.status == "installed"} >= {("nvidia", "5.15.0-143-generic"), ("gdrdrv", "5.15.0-143-generic")}
    peer = [e for e in entries if e.module == "netxtreme-peer-mem"]
    assert peer[0].note == "Differences between built and installed modules"
    assert peer[1].note == "Original modules exist" and peer[1].version == "234.0.154.08"


def test_dkms_status_old_comma_format() -> None:
    (entry,) = parse_dkms_status("amdgpu, 6.7.0-1787201.22.04, 5.15.0-102-generic, x86_64: installed\n").facts.entries
    assert (entry.module, entry.version, entry.status) == ("amdgpu", "6.7.0-1787201.22.04", "installed")


def test_dkms_status_module_added_not_built_and_an_error_line(unread_line) -> None:
    text = "nvidia/570.133.20: added\nError! Could not locate dkms.conf file.\ngdrdrv/2.5, 6.8.0-1-generic, x86_64: installed\n"
    parsed = parse_dkms_status(text)
    added, built = parsed.facts.entries
    assert (added.module, added.kernel, added.status) == ("nvidia", None, "added") and built.status == "installed"
    unread_line(parsed, "Error! Could not locate dkms.conf", "expected '<module>/<version>")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("Error! Could not locate dkms.conf file.\n", "expected '<module>/<version>"), ("   \n\n", "empty")],
    ids=["error-message", "blank"],
)
def test_malformed_dkms_status(parse_error, text: str, fragment: str) -> None:
    parse_error(parse_dkms_status, text, "dkms-status", fragment)


@pytest.mark.parametrize(
    ("name", "symbol", "providers", "count"),
    [("s0_peer_mem_ib_uverbs.txt", "ib_register_peer_memory_client", {"ib_uverbs"}, 7),
     ("h200_nvidia_p2p.txt", "nvidia_p2p_get_pages", {"nvidia"}, 2)],
    ids=["peer-mem-in-ib_uverbs", "nvidia-p2p"],
)
def test_kallsyms(output, name: str, symbol: str, providers: set[str], count: int) -> None:
    symbols = parse_kallsyms(output("kallsyms", name)).facts
    assert len(symbols.symbols) == count
    assert symbols.providers(symbol) == frozenset(providers)
    assert symbols.providers("no_such_symbol") == frozenset()


def test_kallsyms_kernel_image_symbol() -> None:
    assert parse_kallsyms("ffffffff81000000 T _text\n").facts.providers("_text") == frozenset({None})


def test_malformed_kallsyms(parse_error) -> None:
    parse_error(parse_kallsyms, "grep: /proc/kallsyms: Permission denied\n", "kallsyms", "expected '<address> <type> <symbol>")


def test_lsmod_grep_without_header(output) -> None:
    modules = parse_lsmod(output("lsmod", "quadrants_issue766_grep_nvidia.txt")).facts
    assert modules.get("nvidia").used_by == ("nvidia_uvm", "nvidia_modeset") and modules.get("nvidia").used_count == 369
    assert modules.get("nvidia_peermem") is None
