"""The Word export: the report's sanitised HTML page rebuilt as a .docx with python-docx.

The HTML export holds the report in a small set of tags (the sanitiser's allow-list), and each has
a Word counterpart: headings become Word headings (Heading 1-6), lists become List Bullet / List
Number paragraphs (nested up to three levels), block quotes the Quote style, code a monospace run,
tables Word tables with a bold header row. A citation `[n]` links to the bookmark of source n in the
sources list (`source_n`: Word allows no hyphen in a bookmark's name); a web address is an external
hyperlink. The sources section goes last, after the warnings, as a reader of a Word document
expects its references at the end.

Only http(s) links and `#source-n` anchors survive the sanitiser, so those are the only link
targets this module writes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import lxml.html
from docx import Document
from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Pt, RGBColor
from docx.text.paragraph import Paragraph
from lxml.html import HtmlElement

from research_core.output.export import to_html
from research_core.runs.records import RunResult

_MONOSPACE = "Courier New"
_LINK_COLOUR = RGBColor(0x09, 0x69, 0xDA)
_MAX_LIST_LEVEL = 3  # Word's default template has List Bullet, List Bullet 2 and List Bullet 3
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_CONTAINERS = {"section", "header", "main", "div", "body", "thead", "tbody"}


@dataclass(frozen=True)
class _Style:
    """How inline text is written at one point of the tree: emphasis, code and the link around it."""

    bold: bool = False
    italic: bool = False
    code: bool = False
    href: str | None = None


class _Writer:
    """Writes HTML blocks into a python-docx Document, one paragraph (or table) per block."""

    def __init__(self, doc: DocxDocument) -> None:
        self.doc = doc
        self.bookmarks = 0

    # ---- blocks --------------------------------------------------------------------------------

    def blocks(self, elements: Iterable[HtmlElement], *, style: str | None = None, level: int = 0) -> None:
        """Write each element as a block; loose text between blocks gets its own paragraph."""
        for element in elements:
            self.block(element, style=style, level=level)

    def block(self, element: HtmlElement, *, style: str | None = None, level: int = 0) -> None:
        """One block element; `style` overrides the paragraph style (inside quotes), `level` is list depth."""
        tag = element.tag if isinstance(element.tag, str) else ""
        if tag in _HEADINGS:
            self.inline(self.doc.add_heading("", level=_HEADINGS[tag]), element)
        elif tag in ("ul", "ol"):
            self.list_block(element, ordered=tag == "ol", level=level + 1)
        elif tag == "blockquote":
            self.quote(element, level)
        elif tag == "pre":
            self.code_block(element, style)
        elif tag == "table":
            self.table(element)
        elif tag == "hr":
            self.doc.add_paragraph("* * *").alignment = 1
        elif tag in _CONTAINERS:
            self.loose_text(element.text, style)
            for child in element:
                self.block(child, style=style, level=level)
                self.loose_text(child.tail, style)
        elif tag:
            self.inline(self.doc.add_paragraph(style=style), element)

    def loose_text(self, text: str | None, style: str | None) -> None:
        """Text directly inside a container, between blocks: a paragraph of its own if not blank."""
        if text and text.strip():
            self.doc.add_paragraph(text.strip(), style=style)

    def quote(self, element: HtmlElement, level: int) -> None:
        """A block quote: its paragraphs in the Quote style."""
        if len(element) == 0:
            self.inline(self.doc.add_paragraph(style="Quote"), element)
            return
        self.loose_text(element.text, "Quote")
        for child in element:
            self.block(child, style="Quote", level=level)
            self.loose_text(child.tail, "Quote")

    def code_block(self, element: HtmlElement, style: str | None) -> None:
        """Preformatted text: one paragraph, a monospace run per line with line breaks between."""
        paragraph = self.doc.add_paragraph(style=style)
        lines = element.text_content().rstrip("\n").split("\n")
        for n, line in enumerate(lines):
            run = paragraph.add_run(line)
            run.font.name = _MONOSPACE
            run.font.size = Pt(9)
            if n < len(lines) - 1:
                run.add_break()

    def list_block(self, element: HtmlElement, *, ordered: bool, level: int) -> None:
        """A list: each item a List Bullet / List Number paragraph; nested lists one level deeper."""
        base = "List Number" if ordered else "List Bullet"
        style = base if level <= 1 else f"{base} {min(level, _MAX_LIST_LEVEL)}"
        for item in element:
            if item.tag != "li":
                continue
            paragraph = self.doc.add_paragraph(style=style)
            if item.get("id"):
                self.bookmark(paragraph, item.get("id"))
            self.item(paragraph, item, level)

    def item(self, paragraph: Paragraph, item: HtmlElement, level: int) -> None:
        """A list item: its inline content into `paragraph`, its block children after it."""
        self.text(paragraph, item.text, _Style())
        for child in item:
            if child.tag in ("ul", "ol"):
                self.list_block(child, ordered=child.tag == "ol", level=level + 1)
            elif child.tag == "p" and not paragraph.text:
                self.inline(paragraph, child)
            elif child.tag in ("p", "blockquote", "pre", "table"):
                self.block(child, level=level)
            else:
                self.inline_element(paragraph, child, _Style())
                continue
            # text after a block child inside an item goes on a new paragraph
            if child.tail and child.tail.strip():
                self.doc.add_paragraph(child.tail.strip())

    def table(self, element: HtmlElement) -> None:
        """An HTML table as a Word table (Table Grid), header cells bold."""
        rows = [row for row in element.iter("tr")]
        width = max((len([c for c in row if c.tag in ("th", "td")]) for row in rows), default=0)
        if not rows or not width:
            return
        table = self.doc.add_table(rows=len(rows), cols=width)
        table.style = "Table Grid"
        for r, row in enumerate(rows):
            cells = [c for c in row if c.tag in ("th", "td")]
            for c, cell in enumerate(cells):
                paragraph = table.cell(r, c).paragraphs[0]
                self.inline(paragraph, cell, _Style(bold=cell.tag == "th"))

    # ---- inline --------------------------------------------------------------------------------

    def inline(self, paragraph: Paragraph, element: HtmlElement, style: _Style | None = None) -> None:
        """The inline content of `element` (text, emphasis, code, links, breaks) into `paragraph`."""
        style = style or _Style()
        self.text(paragraph, element.text, style)
        for child in element:
            self.inline_element(paragraph, child, style)

    def inline_element(self, paragraph: Paragraph, child: HtmlElement, style: _Style) -> None:
        """One inline child with its tail text."""
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag == "br":
            paragraph.add_run().add_break()
        elif tag in ("strong", "b"):
            self.inline(paragraph, child, replace(style, bold=True))
        elif tag in ("em", "i"):
            self.inline(paragraph, child, replace(style, italic=True))
        elif tag == "code":
            self.inline(paragraph, child, replace(style, code=True))
        elif tag == "a" and child.get("href"):
            self.inline(paragraph, child, replace(style, href=child.get("href")))
        elif tag:
            self.inline(paragraph, child, style)
        self.text(paragraph, child.tail, style)

    def text(self, paragraph: Paragraph, text: str | None, style: _Style) -> None:
        """A run of `text` in `style`; inside a link, the run goes into a Word hyperlink."""
        if not text:
            return
        text = " ".join(text.split("\n")) if not style.code else text
        run = paragraph.add_run(text)
        run.bold = style.bold or None
        run.italic = style.italic or None
        if style.code:
            run.font.name = _MONOSPACE
        if style.href is None:
            return
        run.font.color.rgb = _LINK_COLOUR
        run.font.underline = True
        link = OxmlElement("w:hyperlink")
        if style.href.startswith("#"):
            link.set(qn("w:anchor"), bookmark_name(style.href[1:]))
        else:
            part = paragraph.part
            link.set(qn("r:id"), part.relate_to(style.href, RELATIONSHIP_TYPE.HYPERLINK, is_external=True))
        # python-docx has no public API for hyperlinks or bookmarks: build the elements by hand.
        run._r.addprevious(link)
        link.append(run._r)

    def bookmark(self, paragraph: Paragraph, name: str) -> None:
        """Mark `paragraph` as the target of links to `#name`."""
        self.bookmarks += 1
        start = OxmlElement("w:bookmarkStart")
        start.set(qn("w:id"), str(self.bookmarks))
        start.set(qn("w:name"), bookmark_name(name))
        end = OxmlElement("w:bookmarkEnd")
        end.set(qn("w:id"), str(self.bookmarks))
        properties = paragraph._p.pPr  # must stay the paragraph's first child
        if properties is not None:
            properties.addnext(start)
        else:
            paragraph._p.insert(0, start)
        paragraph._p.append(end)


def bookmark_name(anchor: str) -> str:
    """A Word bookmark name for an HTML anchor: Word allows letters, digits and underscores only."""
    return re.sub(r"\W", "_", anchor)[:40]


def html_to_docx(page: str) -> bytes:
    """An Arbor HTML page (sanitised, from the exports) as .docx bytes; its sources section goes last."""
    root = lxml.html.document_fromstring(page)
    doc = Document()
    title = " ".join((root.findtext(".//title") or "").split())
    doc.core_properties.title = title
    doc.core_properties.author = "Arbor"
    main = root.find(".//main")
    children = list(main if main is not None else root.find("body"))
    sources = [el for el in children if el.tag == "section" and "sources" in (el.get("class") or "").split()]
    writer = _Writer(doc)
    writer.blocks([el for el in children if el not in sources])
    writer.blocks(sources)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def to_docx(result: RunResult) -> bytes:
    """The run's report as a Word document, built from the HTML export."""
    return html_to_docx(to_html(result))
