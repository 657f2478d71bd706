"""The reports of the demo replay agree with its results file: Allure, pytest-html and the terminal count an
item that could not be measured as an error (Allure: broken), never as a failure; the acceptance report
(HTML rendered in headless Chromium, XLSX, PDF) shows the same counts and finds the injected faults."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from acceptance_dom import Element, parse_dom
from demo_run import DemoRun
from matplotlib.image import imread
from report_dom import loaded_resources, rendered_result_rows

from pytest_gpufabric.reporting.acceptance.exports import RESULTS_CSV_TYPES
from pytest_gpufabric.reporting.render import render_html_in_chromium


def test_the_demo_has_failures_and_unmeasured_items(demo_run: DemoRun) -> None:
    counts = demo_run.outcome_counts()

    assert counts["failed"] > 0 and counts["error"] > 0 and counts["passed"] > 0


def test_allure_failed_and_broken_equal_results_failed_and_error(
    demo_run: DemoRun, allure_report_of: Callable[[Path], Path]
) -> None:
    report = allure_report_of(demo_run.allure_results)
    statistic = json.loads((report / "widgets" / "summary.json").read_text(encoding="utf-8"))["statistic"]
    counts = demo_run.outcome_counts()

    assert (statistic["failed"], statistic["broken"]) == (counts["failed"], counts["error"])
    assert (statistic["passed"], statistic["skipped"]) == (counts["passed"], counts["skipped"])


def test_pytest_html_counts_and_rows_equal_results(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    rows = Counter(row.outcome for row in rendered_result_rows(rendered_dom(demo_run.html_report)))
    html = demo_run.html_report.read_text(encoding="utf-8")
    counts = demo_run.outcome_counts()

    assert rows == Counter({outcome: n for outcome, n in counts.items() if n})
    assert re.search(rf">\s*{counts['failed']} Failed,", html) and re.search(rf">\s*{counts['error']} Errors", html)


def test_terminal_counts_unmeasured_as_errors(demo_run: DemoRun) -> None:
    counts = demo_run.outcome_counts()

    assert f"{counts['failed']} failed" in demo_run.output and f"{counts['error']} errors" in demo_run.output
    assert f"{counts['failed']} failed, {counts['error']} not measured" in demo_run.output


# -- the acceptance report (--gpufabric-report) of the same replay, rendered in headless Chromium ------------

BAD_CABLE = "node01/bnxt_re2 <-> node03/bnxt_re2"
BAD_CABLE_HEATMAP = "heatmap-PERF-002-rail-2"


def _report_dom(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> Element:
    return parse_dom(rendered_dom(demo_run.report_dir / "report.html"))


def test_cover_totals_and_verdict_equal_results(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    dom = _report_dom(demo_run, rendered_dom)
    counts = demo_run.outcome_counts()

    shown = {outcome: int(dom.by_id(f"total-{outcome}").text) for outcome in counts}
    assert shown == counts
    # the soak not asked for, and the NICs of node05/node06 whose switch port the site does not plan (CAB-001)
    soak = sum(1 for r in demo_run.records() if r["check_id"] == "PERF-008")
    unplanned = sum(1 for r in demo_run.records() if r["check_id"] == "CAB-001" and r["outcome"] == "skipped")
    assert soak and unplanned == 16
    assert dom.by_id("verdict").text == (f"not accepted: {soak + unplanned} required items skipped without a documented reason; "
                                         f"{counts['failed']} failed, {counts['error']} not measured")
    assert dom.by_id("cover-site").text == "demo-mi300x-thor2"
    assert "S4: AMD Instinct documentation, RDMA and RCCL Benchmarking" in dom.by_id("cover").text


def test_area_table_and_failures_list_every_item(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    dom = _report_dom(demo_run, rendered_dom)
    records = demo_run.records()

    area_rows = dom.by_id("area-table").find_all("tbody")[0].find_all("tr")
    assert sum(int(row.find_all("td")[-1].text) for row in area_rows) == len(records)
    listed = [row.attrs["data-node-id"] for row in dom.by_id("failures").find_all("tr") if "data-node-id" in row.attrs]
    assert sorted(listed) == sorted(r["node_id"] for r in records if r["outcome"] in ("failed", "error"))


def test_bad_cable_is_the_lowest_cell_of_its_rail_marked_failed(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    heatmap = _report_dom(demo_run, rendered_dom).by_id(BAD_CABLE_HEATMAP)
    rail_values = [m["measured"] for r in demo_run.records() if r["check_id"] == "PERF-002"
                   for m in r["measurements"] if m["name"] == "average_bw_gbps" and m["where"].count("/bnxt_re2") == 2]

    lowest = heatmap.find_all("tr", data_outcome="failed")[0]
    assert lowest.attrs["data-pair"] == BAD_CABLE
    assert float(lowest.attrs["data-value"]) == min(rail_values)
    assert len(rail_values) == 2 * int(heatmap.attrs["data-pairs"])  # both directions of every pair of the rail
    assert heatmap.find_all("img")[0].attrs["src"].startswith("data:image/png;base64,")


def test_latency_matrix_and_collective_plots(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    dom = _report_dom(demo_run, rendered_dom)

    latency = dom.by_id("latency").find_all("figure", data_check="PERF-007")
    assert len(latency) == 8 and sum(int(f.attrs["data-failed"]) for f in latency) == 1
    collectives = {f.attrs["data-check"]: f for f in dom.by_id("collectives").find_all("figure")}
    assert {"COLL-001", "COLL-003"} <= set(collectives)
    assert float(collectives["COLL-003"].attrs["data-threshold"]) > 0
    # each node group drawn against its own profile's threshold (MI300X 304 GB/s, H100 VMs 456 GB/s)
    assert collectives["COLL-001"].attrs["data-thresholds"] == "304=node[01-04]; 456=node[05-06]"


def test_versions_highlight_the_old_rocm(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    table = _report_dom(demo_run, rendered_dom).by_id("version-table")

    odd = [(row.find_all("th")[0].text, cell.text) for row in table.find_all("tbody")[0].find_all("tr")
           for cell in row.find_all("td", **{"class": "odd"})]
    assert ("node04", "6.2.4.60204-139~22.04") in odd


def test_suspects_name_the_bad_cable(demo_run: DemoRun, rendered_dom: Callable[[Path], str]) -> None:
    suspects = _report_dom(demo_run, rendered_dom).by_id("suspect-table").text

    assert f"suspect link {BAD_CABLE}" in suspects


def test_report_is_self_contained(demo_run: DemoRun) -> None:
    html = (demo_run.report_dir / "report.html").read_text(encoding="utf-8")

    assert [address for address in loaded_resources(html) if not address.startswith("data:")] == []
    assert "<script" not in html


@pytest.mark.parametrize("view", ["", "heatmap-PERF-002-rail-2", "collective-COLL-003"], ids=["cover", "heatmap", "collective"])
def test_screenshots_show_the_view(demo_run: DemoRun, chromium: Path, view: str, tmp_path: Path) -> None:
    """The address of a figure shows it alone (so it can be handed over, and captured here)."""
    shot = tmp_path / f"{view or 'cover'}.png"
    render_html_in_chromium(demo_run.report_dir / "report.html", shot, fragment=view or None, window_size=(1280, 900))

    pixels = imread(shot)
    assert pixels.shape[:2] == (900, 1280)
    assert pixels[:, :, :3].std() > 0.05, "the screenshot is blank"
    assert ((pixels[:, :, 0] > 0.8) & (pixels[:, :, 1] < 0.2)).any() or not view, "no red (failed) area in the figure"


def test_workbook_counts_equal_results(demo_run: DemoRun) -> None:
    workbook = openpyxl.load_workbook(demo_run.report_dir / "summary.xlsx", read_only=True)
    counts = demo_run.outcome_counts()

    assert {"summary", "results", "node x check", "pair matrices", "versions"} <= set(workbook.sheetnames)
    rows = list(workbook["results"].iter_rows(values_only=True))
    outcome = rows[0].index("outcome")
    assert Counter(row[outcome] for row in rows[1:]) == Counter({k: v for k, v in counts.items() if v})
    summary = list(workbook["summary"].iter_rows(values_only=True))
    header = summary[0]
    assert {name: sum(row[header.index(name)] for row in summary[1:]) for name in counts} == counts
    table = pd.read_csv(demo_run.report_dir / "results.csv", dtype=RESULTS_CSV_TYPES)
    assert table["outcome"].value_counts().to_dict() == {k: v for k, v in counts.items() if v}


def _pdf_pages(path: Path) -> list[str]:
    pypdf = pytest.importorskip("pypdf")
    return [page.extract_text() for page in pypdf.PdfReader(path).pages]


def test_pdf_parts_have_page_x_of_y(demo_run: DemoRun) -> None:
    for name, part in (("report.pdf", "signed part"), ("report-annex.pdf", "evidence annex")):
        pages = _pdf_pages(demo_run.report_dir / name)
        assert [f"page {n} of {len(pages)}" in text for n, text in enumerate(pages, 1)] == [True] * len(pages)
        assert all(part in text and "GFR-demo-mi300x-thor2-" in text for text in pages)
    signed = " ".join(_pdf_pages(demo_run.report_dir / "report.pdf"))
    assert "Sign-off" in signed and "Appendix: raw evidence" not in signed
    assert "Appendix: raw evidence" in _pdf_pages(demo_run.report_dir / "report-annex.pdf")[0]


def test_pdf_holds_the_whole_node_check_matrix(demo_run: DemoRun) -> None:
    checks = sorted({r["check_id"] for r in demo_run.records() if r["check_id"]})
    pages = [text for text in _pdf_pages(demo_run.report_dir / "report.pdf") if "(part " in text and " of " in text]
    printed = " ".join(pages)
    matrix_checks = [c for c in checks if c in printed]
    assert len(checks) >= 84 and matrix_checks == checks


def test_report_suspects_equal_the_terminals(demo_run: DemoRun) -> None:
    html = (demo_run.report_dir / "report.html").read_text(encoding="utf-8")
    shown = [li.text for li in parse_dom(html).by_id("suspect-lines").find_all("li")]
    output = demo_run.output.splitlines()
    start = next(i for i, line in enumerate(output) if "gpufabric fault localization" in line)
    printed = [line for line in output[start + 1:] if line.startswith("suspect ")]

    assert shown == printed and len(shown) == 4
    assert any(line.startswith("suspect node04/bnxt_re5: fails with 5 partners") for line in shown)


def test_no_formula_cell_in_the_demo_workbook(demo_run: DemoRun) -> None:
    workbook = openpyxl.load_workbook(demo_run.report_dir / "summary.xlsx")
    formulas = [f"{s.title}!{c.coordinate}" for s in workbook.worksheets for row in s.iter_rows() for c in row
                if c.data_type == "f"]

    assert formulas == []
    expected = [row[0] for row in workbook["results"].iter_rows(min_row=2, min_col=8, max_col=8, values_only=True)]
    assert "== 9000 bytes" in expected or any(str(v).startswith("==") for v in expected)


def test_allure_labels_and_short_parameters(demo_run: DemoRun) -> None:
    results = [json.loads(p.read_text(encoding="utf-8")) for p in demo_run.allure_results.glob("*-result.json")]
    mtu = next(r for r in results if r["name"].startswith("test_interface_mtu["))
    labels = {label["name"]: label["value"] for label in mtu["labels"]}
    parameters = [p["value"] for r in results for p in r.get("parameters", [])]

    assert (labels["epic"], labels["feature"], labels["severity"]) == ("LNK", "LNK-005", "critical")
    assert max(map(len, parameters)) < 80 and not any("user" in p or "SshConfig" in p for p in parameters)
    assert json.loads((demo_run.allure_results / "executor.json").read_text(encoding="utf-8"))["buildName"]


def test_pytest_html_page_names_the_site_and_summarizes_areas(demo_run: DemoRun) -> None:
    dom = parse_dom(demo_run.html_report.read_text(encoding="utf-8"))  # title and summary are in the page as written

    assert dom.find_all("title")[0].text == "demo-mi300x-thor2: GPU fabric acceptance (mi300x-thor2)"
    summary = dom.by_id("gpufabric-summary")
    assert "site demo-mi300x-thor2" in " ".join(summary.text.split())
    rows = summary.find_all("tbody")[0].find_all("tr")
    assert sum(int(row.find_all("td")[-1].text) for row in rows) == len(demo_run.records())
