"""One door for reading a binary or tabular document: PDF, Word, PowerPoint, Excel or CSV, by kind."""

from __future__ import annotations

from dataclasses import dataclass

from research_core.documents.limits import Budget, DocumentError
from research_core.documents.office import docx_segments, pptx_segments
from research_core.documents.pdf_pages import pdf_segments
from research_core.documents.places import Segment
from research_core.documents.sheets import csv_segments, xlsx_segments

DOCUMENT_KINDS = ("pdf", "docx", "pptx", "xlsx", "csv")


@dataclass(frozen=True)
class ReadDocument:
    """A document's title (from its metadata, may be ""), its located segments, and a note on what was left out."""

    title: str
    segments: list[Segment]
    note: str


def read_document(name: str, kind: str, content: bytes | str, max_chars: int) -> ReadDocument:
    """Read `content` as `kind` within the time and size limits; DocumentError (one line) if it cannot be.

    `content` is the file's bytes, or for csv its decoded text; `max_chars` bounds a passage of rows.
    """
    budget = Budget()
    if kind == "csv":
        segments = csv_segments(name, str(content), budget, max_chars)
        return ReadDocument("", segments, budget.note)
    if not isinstance(content, bytes):
        raise DocumentError(f"'{name}': a {kind} document is read from its bytes.")
    if kind == "pdf":
        return ReadDocument(*pdf_segments(name, content, budget))
    if kind == "docx":
        return ReadDocument(*docx_segments(name, content, budget))
    if kind == "pptx":
        return ReadDocument(*pptx_segments(name, content, budget))
    if kind == "xlsx":
        return ReadDocument(*xlsx_segments(name, content, budget, max_chars))
    raise DocumentError(f"'{name}': {kind!r} is not one of {', '.join(DOCUMENT_KINDS)}.")
