"""Turn a fetched page into plain text: the main text of HTML (trafilatura), the text of a PDF (pypdf).

What comes out is untrusted data: plain text only (no markup survives extraction), with control
characters removed and its length bounded, but its words are the page's own and may say anything,
including instructions aimed at the model. Callers treat it as data.

Extraction is bounded too: HTML is read up to its first `MAX_HTML_TAGS` tags (a page of 100,000
links would cost seconds and hundreds of MB in the parser), and a PDF up to the limits of
`research_core.sources.pdf` (pages, seconds, characters).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Literal

from research_core.documents.html_text import html_to_text
from research_core.documents.parsing import normalize_text
from research_core.errors import ArborError
from research_core.sources.fetch import FetchedPage
from research_core.sources.pdf import PdfUnreadable, bounded_pdf_text

logger = logging.getLogger(__name__)

MAX_TEXT_CHARS = 200_000
MAX_TITLE_CHARS = 300
# Below this many characters a page has no text worth reading (a consent wall, an empty shell).
MIN_TEXT_CHARS = 80
# About 2 s and 100 MB of parsing at most; a long article has far fewer tags than this.
MAX_HTML_TAGS = 30_000
_TAG = re.compile(rb"<")
_TAG_TEXT = re.compile(r"<")

ExtractReason = Literal["empty", "unreadable"]


class ExtractError(ArborError):
    """A page has no readable text. `user_message` says why; `reason` is empty or unreadable."""

    def __init__(self, reason: ExtractReason, user_message: str):
        super().__init__(user_message)
        self.reason: ExtractReason = reason


@dataclass(frozen=True)
class PageText:
    """The title and the main text of a page (plain text, paragraphs separated by blank lines)."""

    title: str
    text: str


def _decoded(page: FetchedPage) -> str | bytes:
    """The HTML as text when the server named a charset it can be decoded with, else the bytes."""
    if page.charset:
        try:
            return page.body.decode(page.charset, errors="replace")
        except LookupError:
            logger.debug("unknown charset %r for %s", page.charset, page.final_url)
    return page.body


def bounded_html(html: str | bytes, max_tags: int = MAX_HTML_TAGS) -> str | bytes:
    """`html` cut just before its tag number `max_tags + 1` (the parser mends what the cut leaves open)."""
    pattern = _TAG if isinstance(html, bytes) else _TAG_TEXT
    for count, found in enumerate(pattern.finditer(html), start=1):  # type: ignore[arg-type]
        if count > max_tags:
            return html[: found.start()]
    return html


def html_main_text(html: str | bytes, url: str | None = None) -> PageText:
    """The main text of an HTML page, without navigation, boilerplate, scripts or styles.

    trafilatura finds the main content; pages too small or too unusual for it fall back to all of
    their visible text.
    """
    import trafilatura

    html = bounded_html(html)
    title = ""
    text = ""
    try:
        document = trafilatura.bare_extraction(
            html,
            url=url,
            include_comments=False,
            include_tables=True,
            include_images=False,
            include_links=False,
            favor_recall=True,
            with_metadata=True,
        )
    except Exception as exc:  # an extractor bug on one odd page must not lose the others
        logger.warning("trafilatura failed on %s: %r", url, exc)
        document = None
    if document is not None:
        title = str(getattr(document, "title", "") or "")
        text = str(getattr(document, "text", "") or "")
    if len(text.strip()) < MIN_TEXT_CHARS:
        raw = html if isinstance(html, str) else html.decode("utf-8", errors="replace")
        fallback_title, fallback_text = html_to_text(raw)
        title = title or fallback_title
        if len(fallback_text.strip()) > len(text.strip()):
            text = fallback_text
    return PageText(title=" ".join(title.split())[:MAX_TITLE_CHARS], text=text)


def pdf_text(body: bytes) -> PageText:
    """The text of a PDF's first pages (`research_core.sources.pdf`); ExtractError if it has none or is unreadable."""
    try:
        parsed = bounded_pdf_text(body, MAX_TEXT_CHARS)
    except PdfUnreadable as exc:
        raise ExtractError("empty" if exc.empty else "unreadable", str(exc)) from None
    return PageText(title=parsed.title, text=parsed.text)


def extract_text(page: FetchedPage) -> PageText:
    """The readable text of a fetched page; ExtractError when there is none."""
    found = pdf_text(page.body) if page.kind == "pdf" else html_main_text(_decoded(page), page.final_url)
    text = normalize_text(found.text)
    if len(text) > MAX_TEXT_CHARS:
        cut = text.rfind("\n", 0, MAX_TEXT_CHARS)
        text = text[: cut if cut > MAX_TEXT_CHARS // 2 else MAX_TEXT_CHARS]
    if len(text) < MIN_TEXT_CHARS:
        raise ExtractError("empty", "the page has no readable text")
    return PageText(title=normalize_text(found.title).replace("\n", " ")[:MAX_TITLE_CHARS], text=text)
