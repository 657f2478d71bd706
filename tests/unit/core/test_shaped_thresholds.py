"""Values documented for one machine shape: judged only on machines of that shape, missing elsewhere (an error that
names the shape, the measured value and the site value to set), and replaced everywhere by a site value."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_gpufabric.errors import ThresholdMissing, UsageError
from pytest_gpufabric.expectations import NoDocumentedThreshold, load_profile
from pytest_gpufabric.shapes import MachineShape

REPO = Path(__file__).resolve().parents[3]
SHAPED = """profile: p
expectations:
  COLL-001:
    busbw_8gb_gbs:
      op: '>='
      unit: GB/s
      by_shape:
      - {shape: {gpus: 8, gpu_link: nvswitch}, value: 456, source: S1 Single node NCCL tests}
      - {shape: {gpus: 8, gpu_link: xgmi}, value: 304, source: S4 Allreduce}
"""
EIGHT_NVSWITCH = MachineShape(8, "H100", "nvswitch", 400)


def _profile(tmp_path: Path, body: str = SHAPED) -> object:
    (tmp_path / "p.yaml").write_text(body)
    return load_profile(tmp_path, "p")


def test_the_value_of_the_machine_shape_is_judged(tmp_path: Path) -> None:
    profile = _profile(tmp_path)
    assert profile.get("COLL-001", "busbw_8gb_gbs", EIGHT_NVSWITCH).value == 456
    found = profile.get("COLL-001", "busbw_8gb_gbs", MachineShape(8, "MI300X", "xgmi"))
    assert (found.value, found.source) == (304, "S4 Allreduce")


@pytest.mark.parametrize(("shape", "words"), [
    (MachineShape(2, "H100", "nvlink"), "2 x H100 NVLink"),
    (MachineShape(2, "H200", "nvswitch"), "2 x H200 NVSwitch"),
    (MachineShape(8, "H100", None), "8 x H100 (GPU link not declared: platform.gpu_link)"),
    (MachineShape(1, "H200", None), "1 x H200"),
])
def test_another_shape_has_no_documented_threshold(tmp_path: Path, shape: MachineShape, words: str) -> None:
    with pytest.raises(NoDocumentedThreshold) as missing:
        _profile(tmp_path).get("COLL-001", "busbw_8gb_gbs", shape)
    error = missing.value.with_measured(343.4, "h100")
    assert isinstance(error, ThresholdMissing)
    assert str(error).startswith(f"COLL-001 at h100: no documented threshold for {words}; measured 343.4 GB/s; "
                                 "set `thresholds.COLL-001.busbw_8gb_gbs` in site.yaml")
    assert "8 GPUs NVSwitch: >= 456 GB/s; 8 GPUs XGMI: >= 304 GB/s" in str(error)


def test_a_site_value_replaces_every_shape_and_is_marked(tmp_path: Path) -> None:
    site = _profile(tmp_path).with_overrides({"COLL-001": {"busbw_8gb_gbs": 330}}, "site.yaml")
    found = site.get("COLL-001", "busbw_8gb_gbs", MachineShape(2, "H100", "nvlink"))
    assert found.value == 330
    assert found.source.startswith("site value: site.yaml (site override of 8 GPUs NVSwitch: >= 456 GB/s")


@pytest.mark.parametrize(("entry", "problem"), [
    ("{shape: {gpus: 8, links: 4}, value: 1, source: S1}", "unknown shape key 'links'"),
    ("{shape: {gpus: '8'}, value: 1, source: S1}", "shape.gpus must be a number"),
    ("{shape: {gpu_link: infiniband}, value: 1, source: S1}", "shape.gpu_link must be one of"),
    ("{shape: {gpus: 8}, value: fast, source: S1}", "needs a number"),
    ("{shape: {gpus: 8}, value: 1, source: ''}", "empty source"),
    ("{shape: {gpus: 8}, value: 1}", "expected a mapping with shape, value, source"),
])
def test_bad_shaped_values_are_refused_when_the_profile_loads(tmp_path: Path, entry: str, problem: str) -> None:
    body = f"profile: p\nexpectations:\n  COLL-001:\n    busbw_8gb_gbs:\n      op: '>='\n      by_shape:\n      - {entry}\n"
    with pytest.raises(UsageError, match=problem):
        _profile(tmp_path, body)


def test_bundled_profiles_key_the_eight_gpu_all_reduce_by_shape() -> None:
    two = MachineShape(2, "H100", "nvlink", 400)
    for name in ("hgx-h100-thor2", "h100-thor2-vmware", "mi300x-thor2"):
        with pytest.raises(NoDocumentedThreshold):
            load_profile(REPO / "thresholds", name).get("COLL-001", "busbw_8gb_gbs", two)
    assert load_profile(REPO / "thresholds", "hgx-h100-thor2").get("COLL-001", "busbw_8gb_gbs", EIGHT_NVSWITCH).value == 456
    with pytest.raises(NoDocumentedThreshold, match="NIC 200 Gb/s"):  # S4's 380 Gb/s is for a 400G NIC
        load_profile(REPO / "thresholds", "mi300x-thor2").get("PERF-002", "average_bw_gbps", MachineShape(8, "MI300X", "xgmi", 200))
