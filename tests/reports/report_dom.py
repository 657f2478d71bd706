"""Read rendered reports: result rows of a pytest-html DOM, Allure status counts, resources a page loads."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

PYTEST_HTML_OUTCOMES = frozenset({"passed", "failed", "skipped", "error", "xfailed", "xpassed", "rerun"})
PHASE_SUFFIX = re.compile(r"::(setup|teardown)$")
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""")


@dataclass(frozen=True)
class RenderedRow:
    """One result row that pytest-html's JavaScript put into the results table."""

    test_id: str
    outcome: str

    @property
    def nodeid(self) -> str:
        """The pytest node id (pytest-html appends ::setup or ::teardown for results of those phases)."""
        return PHASE_SUFFIX.sub("", self.test_id)


def _classes(attrs: list[tuple[str, str | None]]) -> list[str]:
    return (dict(attrs).get("class") or "").split()


class _ResultRowCollector(HTMLParser):
    """Collects results-table rows outside <template> (templates hold the rows the script clones)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.template_depth = 0
        self.rows: list[RenderedRow] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "template":
            self.template_depth += 1
            return
        classes = _classes(attrs)
        if tag != "tbody" or self.template_depth or "results-table-row" not in classes:
            return
        test_id = dict(attrs).get("id")
        if not test_id:  # the "No results found" row of an empty table
            return
        outcomes = [name for name in classes if name in PYTEST_HTML_OUTCOMES]
        self.rows.append(RenderedRow(test_id=test_id, outcome=outcomes[0] if outcomes else ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "template" and self.template_depth:
            self.template_depth -= 1


def rendered_result_rows(dom: str) -> list[RenderedRow]:
    """Rows of a pytest-html 4 report's results table, as the browser built them from the embedded data."""
    collector = _ResultRowCollector()
    collector.feed(dom)
    collector.close()
    return collector.rows


class _ResourceCollector(HTMLParser):
    """Collects what a page loads: script sources, linked stylesheets/icons, images, frames, CSS url()s."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.resources: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in {"script", "img", "iframe", "source", "video", "audio", "embed"} and values.get("src"):
            self.resources.append(values["src"] or "")
        if tag == "link" and values.get("href"):
            self.resources.append(values["href"] or "")
        if tag == "object" and values.get("data"):
            self.resources.append(values["data"] or "")
        if values.get("style"):
            self.resources += CSS_URL.findall(values["style"] or "")
        self.in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self.in_style = False

    def handle_data(self, data: str) -> None:
        if self.in_style:
            self.resources += CSS_URL.findall(data)


def loaded_resources(html: str) -> list[str]:
    """Every address the page makes the browser fetch (not plain <a href> links, which load nothing)."""
    collector = _ResourceCollector()
    collector.feed(html)
    collector.close()
    return collector.resources


def is_remote(address: str) -> bool:
    """True for addresses on another machine: http(s) and protocol-relative ones."""
    return address.strip().lower().startswith(("http://", "https://", "//"))


class _AllureStatusCollector(HTMLParser):
    """Reads the status filter of Allure 2's tree views: <span class="y-label y-label_status_failed">1</span>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.current_status: str | None = None
        self.counts: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        statuses = [
            name.removeprefix("y-label_status_") for name in _classes(attrs) if name.startswith("y-label_status_")
        ]
        self.current_status = statuses[0] if tag == "span" and statuses else None

    def handle_endtag(self, tag: str) -> None:
        self.current_status = None

    def handle_data(self, data: str) -> None:
        if self.current_status is not None and data.strip().isdigit():
            self.counts.setdefault(self.current_status, int(data.strip()))


def allure_status_counts(dom: str) -> dict[str, int]:
    """Test counts per status shown by a rendered Allure 2 tree view (e.g. #suites); empty if none rendered."""
    collector = _AllureStatusCollector()
    collector.feed(dom)
    collector.close()
    return collector.counts
