"""The report page: one self-contained HTML document (inline CSS, images as data URIs, no script, no
address outside the file), readable on screen and printable to PDF.

An address ending in a section's or a figure's id (``report.html#heatmap-PERF-002-rail-2``) shows that
part alone, so a link handed to someone opens on one heatmap; ``#`` (the "all" link) shows everything."""

from __future__ import annotations

from html import escape

STYLE = """
body{font-family:'Liberation Sans',Arial,sans-serif;margin:24px;color:#222;font-size:13px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:18px;border-bottom:2px solid #345;padding-bottom:3px;margin-top:28px}
h3{font-size:14px;margin:16px 0 6px}nav a{margin-right:10px}
.verdict{font-size:18px;font-weight:bold;padding:8px 12px;display:inline-block;border-radius:4px}
.incomplete{font-size:15px;font-weight:bold;background:#ffd591;padding:6px 10px;border-radius:4px}
.verdict.accepted{background:#d8f0d8;color:#135d13}.verdict.rejected{background:#f8d7d7;color:#8a1010}
.totals{display:flex;gap:12px;margin:12px 0}.total{padding:8px 14px;border-radius:4px;text-align:center;min-width:90px}
.total .n{display:block;font-size:22px;font-weight:bold}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f0f3f6;text-align:left}.facts th{width:140px}
.o-passed{background:#d8f0d8}.o-failed{background:#f4a6a6}.o-error{background:#ffd591}.o-skipped{background:#e6e6e6}
.matrix td{text-align:center;font-size:11px;padding:1px 3px;min-width:22px}.matrix a{color:#000}
.matrix th.rot{height:70px;white-space:nowrap;vertical-align:bottom;padding:0 2px}
.matrix th.rot span{writing-mode:vertical-rl;transform:rotate(180deg);font-size:10px}
.key{padding:2px 8px;margin-right:6px;border-radius:3px}.scroll{overflow-x:auto}
.figures{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0 0 12px;break-inside:avoid}
figure img{max-width:100%}figcaption{font-size:11px;color:#444;max-width:640px}
.worst{font-size:11px}.odd{background:#ffd591;font-weight:bold}.message{font-size:11px;white-space:pre-wrap}
pre{background:#f7f7f7;border:1px solid #ddd;padding:6px;font-size:10px;white-space:pre-wrap;word-break:break-all}
.failures td{font-size:11px}.intro{color:#555}
body:has(:target) section:not(:target):not(:has(:target)){display:none}
body:has(figure:target) section :is(h3,p.intro,figure:not(:target)){display:none}
.o-missing{background:#ffe0ef}.o-deviation{background:#dde7ff}
.hash{font-family:monospace;font-size:10px;word-break:break-all}.signoff td.sign{width:180px;height:34px}
#node-verdicts td,#missing-table td,#deviation-table td{font-size:11px}.print-only{display:none}
@media print{section{break-before:page}#cover{break-before:auto}nav{display:none}
.print-only{display:block}.screen-only{display:none}.scroll{overflow:visible}
.matrix-part{break-inside:avoid;margin-bottom:10px}
body.print-signed #appendix{display:none}body.print-annex section:not(#appendix){display:none}
body.print-annex #appendix{break-before:auto}}
"""

SECTIONS = (("", "All"), ("cover", "Cover"), ("coverage", "Coverage"), ("deviations", "Deviations"),
            ("retests", "Retests"), ("nodes", "Per node"), ("areas", "Areas"), ("matrix", "Nodes x checks"), ("pairs", "NIC pairs"),
            ("latency", "Latency"), ("collectives", "Collectives"), ("versions", "Versions"),
            ("suspects", "Suspects"), ("failures", "Failures"), ("skips", "Skipped"), ("appendix", "Appendix"))


def page(title: str, sections: list[str]) -> str:
    nav = "".join(f"<a href='#{key}'>{escape(label)}</a>" for key, label in SECTIONS)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head>"
        f"<body><nav>{nav}</nav>{''.join(sections)}</body></html>"
    )
