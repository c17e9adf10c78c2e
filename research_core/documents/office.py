"""Word and PowerPoint files as located text: a Word section per heading, a deck's text slide by slide.

python-docx and python-pptx read the files directly (no conversion to Markdown first), so each
passage keeps the heading it sits under or the slide it is on. Word tables become one line per row
(cells joined by " | "); a slide's title comes first, then its other text, its tables and its notes.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

from research_core.documents.limits import Budget, DocumentError, check_zip, damaged_as
from research_core.documents.places import Place, Segment

# A password-protected Office file is not a zip but an OLE container, as the old .doc/.ppt/.xls are.
OLE_MAGIC = b"\xd0\xcf\x11\xe0"


def check_office(name: str, data: bytes, what: str) -> None:
    """Refuse what is not an Office Open XML file (a protected or old-format file, anything else), then
    check the zip limits."""
    if data.startswith(OLE_MAGIC):
        raise DocumentError(
            f"'{name}' is password-protected or in the old {what} format; "
            "save an unprotected copy in the current format."
        )
    if not data.startswith(b"PK\x03\x04"):
        raise DocumentError(f"'{name}' is not a {what}: its content does not match its extension.")
    check_zip(name, data, what)


# ---- Word --------------------------------------------------------------------------------------


def docx_segments(name: str, data: bytes, budget: Budget) -> tuple[str, list[Segment], str]:
    """(core title, one segment per section under a heading, a note if a limit cut it short)."""
    from docx import Document

    check_office(name, data, "Word document")
    with damaged_as(name, "a Word document"):
        document = Document(io.BytesIO(data))
        title = (document.core_properties.title or "").strip()
        segments = list(_sections(document, budget))
    return title, segments, budget.note


def _blocks(document: object) -> Iterator[tuple[str, str]]:
    """(style name, text) of each paragraph and table row, in document order."""
    from docx.table import Table

    for block in document.iter_inner_content():  # type: ignore[attr-defined]
        if isinstance(block, Table):
            for row in block.rows:
                cells = [" ".join(cell.text.split()) for cell in row.cells]
                yield "", " | ".join(cell for cell in cells if cell)
        else:
            yield (block.style.name if block.style is not None else ""), block.text


def _sections(document: object, budget: Budget) -> Iterator[Segment]:
    """The text between headings, each under the place of the heading it follows."""
    place: Place | None = None
    lines: list[str] = []
    for style, text in _blocks(document):
        if budget.spent():
            break
        heading = style.startswith("Heading") or style == "Title"
        if heading and text.strip():
            if any(line.strip() for line in lines):
                yield Segment(place=place, text="\n\n".join(lines))
            place, lines = Place(kind="section", name=" ".join(text.split())[:200]), []
        lines.append(budget.take(text))
    if any(line.strip() for line in lines):
        yield Segment(place=place, text="\n\n".join(lines))


# ---- PowerPoint --------------------------------------------------------------------------------


def pptx_segments(name: str, data: bytes, budget: Budget) -> tuple[str, list[Segment], str]:
    """(core title, one segment per slide with text, a note if a limit cut it short)."""
    from pptx import Presentation

    check_office(name, data, "PowerPoint deck")
    with damaged_as(name, "a PowerPoint deck"):
        deck = Presentation(io.BytesIO(data))
        title = (deck.core_properties.title or "").strip()
        segments: list[Segment] = []
        for number, slide in enumerate(deck.slides, start=1):
            if budget.spent():
                break
            text = "\n\n".join(_slide_texts(slide))
            if text.strip():
                segments.append(Segment(place=Place(kind="slide", number=number), text=budget.take(text)))
    return title, segments, budget.note


def _slide_texts(slide: object) -> Iterator[str]:
    """A slide's title, then the text of its other shapes and tables, then its notes."""
    shapes = list(slide.shapes)  # type: ignore[attr-defined]
    title = slide.shapes.title  # type: ignore[attr-defined]
    if title is not None and title.has_text_frame:
        yield title.text_frame.text
    for shape in shapes:
        if title is not None and shape.shape_id == title.shape_id:
            continue
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            yield shape.text_frame.text
        elif getattr(shape, "has_table", False) and shape.has_table:
            for row in shape.table.rows:
                yield " | ".join(" ".join(cell.text.split()) for cell in row.cells)
    if slide.has_notes_slide:  # type: ignore[attr-defined]
        notes = slide.notes_slide.notes_text_frame  # type: ignore[attr-defined]
        if notes is not None and notes.text.strip():
            yield f"Notes: {notes.text}"
