"""Exports of a document Arbor writes itself in Markdown (a comparison's judgement, say), in every format.

The caller escapes any untrusted text it puts in the Markdown (`escape_markdown`); the HTML is
rendered with raw HTML disabled and sanitised like a report's, and the PDF and Word files are
made from that HTML, as a report's are.
"""

from __future__ import annotations

from typing import Literal

from research_core.output.export import MIME_TYPES, html_page, markdown_html
from research_core.text.sanitize import redact_secrets

DocumentFormat = Literal["md", "html", "pdf", "docx"]
DOCUMENT_FORMATS: tuple[DocumentFormat, ...] = ("md", "html", "pdf", "docx")


def render_document(title: str, markdown: str, fmt: DocumentFormat) -> str | bytes:
    """The Markdown document titled `title` as `fmt`: text for md and html, bytes for pdf and docx."""
    if fmt == "md":
        return redact_secrets(markdown)
    page = html_page(title, markdown_html(markdown))
    if fmt == "html":
        return page
    if fmt == "pdf":
        from research_core.output.pdf import html_to_pdf

        return html_to_pdf(page)
    if fmt == "docx":
        from research_core.output.word import html_to_docx

        return html_to_docx(page)
    raise ValueError(f"Unknown document format {fmt!r}; expected one of: {', '.join(DOCUMENT_FORMATS)}.")


def document_mime(fmt: DocumentFormat) -> str:
    """The MIME type of a document in `fmt`."""
    return MIME_TYPES[fmt]
