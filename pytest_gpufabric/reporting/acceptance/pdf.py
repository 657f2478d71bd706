"""The report as PDF files: the signed part (cover to failures) and the evidence annex apart, each with
"page x of y" and the report id in the footer, on A4 or Letter (CSS paged media, printed by headless
Chromium from the same HTML: a class on the body chooses the part)."""

from __future__ import annotations

import tempfile
from html import escape
from pathlib import Path

from pytest_gpufabric.reporting.acceptance.exports import print_pdf

PAPERS = {"a4": "A4", "letter": "letter"}
SIGNED_PDF = "report.pdf"
ANNEX_PDF = "report-annex.pdf"
PARTS = (("print-signed", SIGNED_PDF, "signed part"), ("print-annex", ANNEX_PDF, "evidence annex"))


def _css_text(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def page_style(paper: str, footer: str, part: str) -> str:
    """The print style of one part: paper size, margins and the footer boxes."""
    return (f"<style>@page{{size:{PAPERS[paper]};margin:14mm 11mm 16mm;"
            f"@bottom-left{{content:{_css_text(f'{footer} - {part}')};font-size:8px;color:#555}}"
            f"@bottom-right{{content:\"page \" counter(page) \" of \" counter(pages);font-size:8px;color:#555}}}}</style>")


def print_parts(html: str, out: Path, paper: str, footer: str) -> tuple[list[Path], str]:
    """Print both parts of ``html``; returns the files written and a one-line note."""
    written, notes = [], []
    with tempfile.TemporaryDirectory(prefix="gpufabric-print-") as scratch:
        for body_class, name, part in PARTS:
            copy = Path(scratch) / f"{body_class}.html"
            styled = html.replace("</head>", page_style(paper, footer, part) + "</head>", 1)
            copy.write_text(styled.replace("<body>", f"<body class='{escape(body_class)}'>", 1), encoding="utf-8")
            note = print_pdf(copy, out / name)
            if note.startswith(f"{name}:"):
                written.append(out / name)
            else:
                notes.append(note)
    if notes:
        return written, "; ".join(notes)
    return written, f"PDF ({PAPERS[paper]}): {written[0]} (signed part) and {written[1].name} (evidence annex)"
