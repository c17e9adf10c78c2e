"""Small office files built in memory for the library tests: PDF (by WeasyPrint), Word, PowerPoint, Excel."""

from __future__ import annotations

import html
import io

from docx import Document
from openpyxl import Workbook
from pptx import Presentation

from research_core.output.pdf import html_to_pdf


def pdf_file(pages: list[str], title: str = "") -> bytes:
    """A PDF with one page per text (printed with Arbor's print stylesheet, so each page has a "n / N" footer)."""
    body = "".join(f'<section style="break-before: page"><p>{html.escape(text)}</p></section>' for text in pages)
    head = f"<title>{html.escape(title)}</title>" if title else ""
    return html_to_pdf(f"<html><head>{head}</head><body>{body}</body></html>")


def docx_file(sections: dict[str, list[str]], title: str = "", table: list[list[str]] | None = None) -> bytes:
    """A Word document: a Heading 1 and its paragraphs per section ("" for text before any heading)."""
    document = Document()
    document.core_properties.title = title
    for heading, paragraphs in sections.items():
        if heading:
            document.add_heading(heading, level=1)
        for text in paragraphs:
            document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, text in enumerate(row):
                grid.cell(r, c).text = text
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def pptx_file(slides: list[tuple[str, str]], notes: dict[int, str] | None = None) -> bytes:
    """A deck of title-and-content slides; `notes` maps a slide number (from 1) to its speaker notes."""
    deck = Presentation()
    for number, (title, text) in enumerate(slides, start=1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = text
        if notes and number in notes:
            slide.notes_slide.notes_text_frame.text = notes[number]
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def xlsx_file(sheets: dict[str, list[list[object]]]) -> bytes:
    """A workbook with one sheet per name, rows as given (the first row a header)."""
    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
