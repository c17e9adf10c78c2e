"""Turn a fetched page into plain text: the main text of HTML (trafilatura), the text of a PDF (pypdf).

What comes out is untrusted data: plain text only (no markup survives extraction), with control
characters removed and its length bounded, but its words are the page's own and may say anything,
including instructions aimed at the model. Callers treat it as data.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

from research_core.errors import ArborError
from research_core.search.library import LibraryError, html_to_text, normalize_text, parse_document
from research_core.sources.fetch import FetchedPage

logger = logging.getLogger(__name__)

MAX_TEXT_CHARS = 200_000
MAX_TITLE_CHARS = 300
# Below this many characters a page has no text worth reading (a consent wall, an empty shell).
MIN_TEXT_CHARS = 80

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


def html_main_text(html: str | bytes, url: str | None = None) -> PageText:
    """The main text of an HTML page, without navigation, boilerplate, scripts or styles.

    trafilatura finds the main content; pages too small or too unusual for it fall back to all of
    their visible text.
    """
    import trafilatura

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
    """The text of a PDF; ExtractError if it has none (a scan) or cannot be read."""
    try:
        parsed = parse_document("page.pdf", body)
    except LibraryError as exc:
        message = str(exc).replace("'page.pdf' ", "the PDF ").replace("'page.pdf'", "the PDF")
        reason: ExtractReason = "empty" if "no extractable text" in message else "unreadable"
        raise ExtractError(reason, message) from None
    return PageText(title=parsed.title if parsed.title != "page" else "", text=parsed.text)


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
