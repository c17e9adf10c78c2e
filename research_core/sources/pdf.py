"""The text of a fetched PDF, bounded in pages, time and characters.

A PDF from the web may be built to be costly: thousands of pages sharing one content stream cost
little on the wire and much to extract. So extraction reads at most `MAX_PDF_PAGES` pages, stops
after `PDF_TIME_S` seconds (checked between pages) or once it has `max_chars` characters, and
keeps what it has read so far; pypdf's own limits bound each stream it decompresses.
"""

from __future__ import annotations

import io
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pypdf import PdfReader

logger = logging.getLogger(__name__)

MAX_PDF_PAGES = 300
PDF_TIME_S = 5.0


class PdfUnreadable(Exception):
    """The bytes could not be read as a PDF; `empty` when it was read but holds no text (a scan)."""

    def __init__(self, message: str, *, empty: bool = False):
        super().__init__(message)
        self.empty = empty


@dataclass(frozen=True)
class PdfText:
    """The title and text of a PDF's first pages, and whether the limits cut it short."""

    title: str
    text: str
    cut: bool


def bounded_pdf_text(
    data: bytes, max_chars: int, max_pages: int = MAX_PDF_PAGES, time_s: float = PDF_TIME_S
) -> PdfText:
    """The text of at most `max_pages` pages of a PDF, read within about `time_s` seconds and `max_chars`."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    stop = time.monotonic() + time_s
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfUnreadable("the PDF is password-protected")
        pages, cut = _pages_text(reader, max_chars, max_pages, stop)
        title = _title(reader)
    except PdfUnreadable:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        raise PdfUnreadable(f"the PDF could not be read ({type(exc).__name__})") from None
    text = "\n\n".join(page for page in pages if page.strip())
    if not text.strip():
        raise PdfUnreadable("the PDF has no extractable text (a scanned PDF?)", empty=True)
    return PdfText(title=title, text=text, cut=cut)


def _pages_text(reader: PdfReader, max_chars: int, max_pages: int, stop: float) -> tuple[list[str], bool]:
    """The text of the first pages, until a limit; (texts, whether a limit ended the reading early)."""
    pages: list[str] = []
    total = 0
    count = len(reader.pages)
    for number in range(min(count, max_pages)):
        if number and (time.monotonic() > stop or total >= max_chars):  # the first page is always read
            return pages, True
        try:
            text = reader.pages[number].extract_text() or ""
        except Exception as exc:  # one broken page must not lose the document
            logger.debug("PDF page %d has no readable text: %r", number + 1, exc)
            continue
        pages.append(text)
        total += len(text)
    return pages, count > max_pages


def _title(reader: PdfReader) -> str:
    try:
        meta = reader.metadata
        return str(meta.title or "").strip() if meta else ""
    except Exception as exc:
        logger.debug("unreadable PDF metadata: %r", exc)
        return ""
