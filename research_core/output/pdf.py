"""The PDF export: the report's sanitised HTML page printed by WeasyPrint with a print stylesheet.

The page is the HTML export (`to_html`), so the PDF shows what it shows: title, question, date and
totals, the report with its numbered citations as links to the sources list, the branch answers,
and every source with its address (or file name and page) and the quotes behind its citations.

A report is untrusted text, so rendering it must never load anything: WeasyPrint gets a URL
fetcher that refuses every URL, whatever its scheme. The sanitiser already leaves no image or
stylesheet to fetch; the fetcher is the second wall. Fonts come from the system (fontconfig); the
stylesheet names Noto CJK after the Latin faces, so a Japanese or Chinese report prints real glyphs
where those fonts are installed (`scripts/setup.sh` installs them).
"""

from __future__ import annotations

import logging
import re

from research_core.output.export import to_html
from research_core.runs.records import RunResult

logger = logging.getLogger(__name__)

# The page's own (screen) stylesheet is replaced by this one: WeasyPrint prints it without warnings.
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm 20mm;
        @bottom-center { content: counter(page) " / " counter(pages); font-size: 8pt; color: #59636e; } }
html { font-size: 10.5pt; }
body { font-family: "DejaVu Sans", "Liberation Sans", "Noto Sans CJK JP", "Noto Sans CJK SC", sans-serif;
       color: #1f2328; line-height: 1.45; margin: 0; }
h1 { font-size: 18pt; line-height: 1.25; }
h1 + p { color: #59636e; font-size: 9pt; }
h2 { font-size: 14pt; border-bottom: 1px solid #d1d9e0; padding-bottom: 2pt; margin-top: 18pt; }
h1, h2, h3, h4, h5, h6 { break-after: avoid; }
a { color: #0969da; text-decoration: none; overflow-wrap: anywhere; }
a[href^="#source-"] { font-size: 0.8em; vertical-align: super; }
section.sources ul { list-style: none; padding-left: 0; }
section.sources li { margin: 5pt 0; overflow-wrap: anywhere; }
section.sources li, blockquote, tr { break-inside: avoid; }
code, pre { font-family: "DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono CJK JP", monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 6pt; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #d1d9e0; padding: 2pt 5pt; }
blockquote { color: #59636e; border-left: 3pt solid #d1d9e0; margin-left: 0; padding-left: 8pt; }
""".strip()
_PAGE_STYLE = re.compile(r"<style>.*?</style>", re.DOTALL)


def refusing_fetcher() -> object:
    """A WeasyPrint URL fetcher that refuses every URL (http, file, data, anything) and logs it."""
    from weasyprint.urls import URLFetcher

    class RefusingFetcher(URLFetcher):
        """Loads nothing: a report's URLs come from the web or a model."""

        def fetch(self, url: str, headers: object = None) -> object:
            logger.warning("PDF export refused to load %.200s", url)
            raise ValueError("the PDF export loads no URL")

    return RefusingFetcher(fail_on_errors=False)


def html_to_pdf(page: str) -> bytes:
    """Print an HTML page of Arbor's (already sanitised) as PDF bytes with the print stylesheet, loading no URL."""
    from weasyprint import CSS, HTML

    fetcher = refusing_fetcher()
    document = HTML(string=_PAGE_STYLE.sub("", page, count=1), base_url=None, url_fetcher=fetcher)
    return document.write_pdf(stylesheets=[CSS(string=PRINT_CSS, url_fetcher=fetcher)])


def to_pdf(result: RunResult) -> bytes:
    """The run's report as a PDF: the HTML export printed with the print stylesheet."""
    return html_to_pdf(to_html(result))
