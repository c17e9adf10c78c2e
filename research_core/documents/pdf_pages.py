"""A PDF's text page by page (pypdf), each page a segment at its page number, within the reading limits.

pypdf measured better than a Markdown converter here: it keeps page boundaries, which a citation
needs, and reads a page in milliseconds. An encrypted PDF (other than with an empty password) is
refused; a PDF without a text layer on any page (a scan) is refused with a hint to run OCR; one
with text on only some pages is indexed with a note saying how many.
"""

from __future__ import annotations

import io
import logging

from research_core.documents.limits import MAX_PAGES, Budget, DocumentError
from research_core.documents.places import Place, Segment

logger = logging.getLogger(__name__)


def pdf_segments(name: str, data: bytes, budget: Budget) -> tuple[str, list[Segment], str]:
    """(metadata title, one segment per page with text, a note on what was skipped or "")."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _opens_without_password(reader):
            raise DocumentError(f"'{name}' is password-protected; save an unprotected copy and add that.")
        count = len(reader.pages)
        segments = _pages(name, reader, count, budget)
        title = _title(name, reader)
    except DocumentError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        raise DocumentError(f"'{name}' could not be read as a PDF ({type(exc).__name__}: {exc}).") from None
    read = segments[-1].place.number if segments and segments[-1].place else 0
    if not segments:
        if budget.cut:
            raise DocumentError(f"'{name}': no text found before {budget.cut}.")
        raise DocumentError(
            f"'{name}' has no text layer on any of its {count} page(s) (a scanned PDF?). "
            "Run OCR on it, or add a text version."
        )
    return title, segments, _note(count, len(segments), read, budget)


def _opens_without_password(reader: object) -> bool:
    """True for an encrypted PDF that opens with the empty password (it only restricts printing or copying)."""
    try:
        return bool(reader.decrypt(""))  # type: ignore[attr-defined]
    except Exception as exc:  # an unknown cipher, a broken encryption dictionary
        logger.debug("PDF decryption failed: %r", exc)
        return False


def _pages(name: str, reader: object, count: int, budget: Budget) -> list[Segment]:
    segments: list[Segment] = []
    for number in range(1, min(count, MAX_PAGES) + 1):
        if budget.spent():
            break
        try:
            text = reader.pages[number - 1].extract_text() or ""  # type: ignore[attr-defined]
        except Exception as exc:  # one broken page must not lose the document
            logger.warning("%s: page %d has no readable text: %r", name, number, exc)
            continue
        if text.strip():
            segments.append(Segment(place=Place(kind="page", number=number), text=budget.take(text)))
    if count > MAX_PAGES and not budget.cut:
        budget.cut = f"only the first {MAX_PAGES:,} pages are read"
    return segments


def _title(name: str, reader: object) -> str:
    try:
        meta = reader.metadata  # type: ignore[attr-defined]
        return str(meta.title or "").strip() if meta else ""
    except Exception as exc:
        logger.debug("%s: unreadable PDF metadata: %r", name, exc)
        return ""


def _note(count: int, with_text: int, last_read: int, budget: Budget) -> str:
    """One line on what was not indexed: a limit reached, or pages without a text layer."""
    if budget.cut:
        return f"indexed {with_text} page(s) with text up to p. {last_read} of {count}: {budget.cut}."
    if with_text < count:
        return f"{count - with_text} of {count} page(s) have no text layer (scanned?) and were skipped."
    return ""
