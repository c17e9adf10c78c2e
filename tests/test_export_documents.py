"""PDF and Word exports, opened the way a reader's viewer opens them (pypdf, python-docx)."""

from __future__ import annotations

import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import docx
import pypdf
import pytest

from research_core.output.export import MIME_TYPES, export_result
from research_core.output.pdf import html_to_pdf, to_pdf
from research_core.output.word import to_docx
from research_core.runs.records import RunResult
from tests.test_export import make_result
from tests.test_export_quotes import REACT_QUOTE, with_quotes

TABLE = "\n\n| Library | Share |\n|---|--:|\n| React | 40% |\n| Vue | 18% |\n"
JAPANESE_QUESTION = "量子コンピュータは何に使われますか？"
JAPANESE_ANSWER = "# 概要\n\n量子コンピュータは暗号の解読に使われる可能性があります [1]。\n\n- 創薬\n- 物流の最適化\n"


@pytest.fixture(scope="module")
def result() -> RunResult:
    base = with_quotes(make_result())
    return base.model_copy(update={"final_answer": base.final_answer + TABLE + "\n1. First step\n2. Second step\n"})


@pytest.fixture(scope="module")
def pdf(result: RunResult) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(to_pdf(result)))


@pytest.fixture(scope="module")
def word(result: RunResult) -> docx.document.Document:
    return docx.Document(io.BytesIO(to_docx(result)))


def pdf_text(reader: pypdf.PdfReader) -> str:
    return "\n".join(page.extract_text() or "" for page in reader.pages)


def pdf_links(reader: pypdf.PdfReader) -> list[dict]:
    """The link annotations of every page, resolved."""
    links = []
    for page in reader.pages:
        for annot in page.get("/Annots") or []:
            obj = annot.get_object()
            if obj.get("/Subtype") == "/Link":
                links.append(obj)
    return links


# ---- PDF -------------------------------------------------------------------------------------------


def test_the_pdf_shows_title_totals_report_citations_sources_and_quotes(pdf: pypdf.PdfReader) -> None:
    text = pdf_text(pdf)
    assert pdf.metadata.title == "React vs Vue: which should a new team pick?"
    assert "React vs Vue" in text and "2026-11-22 06:54 UTC" in text and "12,345 in" in text
    assert "React is more widely used [1]" in text
    assert "Branch syntheses" in text and "How popular is Vue?" in text
    assert "https://react.dev/learn" in text and "library://doc-7" in text
    assert REACT_QUOTE[:40] in " ".join(text.split())
    assert "[9]" not in text and "javascript:" not in text


def test_pdf_citations_are_links_to_the_sources_list_and_web_links_stay_links(pdf: pypdf.PdfReader) -> None:
    links = pdf_links(pdf)
    uris = {str(link["/A"].get("/URI")) for link in links if "/A" in link and link["/A"].get("/S") == "/URI"}
    internal = [link for link in links if "/Dest" in link or ("/A" in link and link["/A"].get("/S") == "/GoTo")]
    assert "https://react.dev/learn" in uris
    assert not any(u.startswith(("javascript:", "http://tracker")) for u in uris)
    assert len(internal) >= 4  # [1] [2] in the answer, [1] and [3] in the branches, more in the findings


def test_a_japanese_report_prints_real_characters_in_a_cjk_font() -> None:
    base = make_result()
    result = base.model_copy(update={"question": JAPANESE_QUESTION, "final_answer": JAPANESE_ANSWER})
    reader = pypdf.PdfReader(io.BytesIO(to_pdf(result)))
    text = "".join(pdf_text(reader).split())
    assert JAPANESE_QUESTION in text
    assert "量子コンピュータは暗号の解読に使われる可能性があります" in text and "物流の最適化" in text
    fonts = {
        str(font.get_object()["/BaseFont"])
        for page in reader.pages
        for font in (page["/Resources"].get("/Font") or {}).values()
    }
    assert any("CJK" in name for name in fonts), fonts


class _Counter(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/css")
        self.end_headers()
        self.wfile.write(b"body { color: red }")

    def log_message(self, *args: object) -> None:
        pass


def test_rendering_loads_no_url_even_from_a_page_that_asks_for_some(tmp_path, caplog) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    local = tmp_path / "secret.css"
    local.write_text("body { color: blue }")
    page = (
        f'<html><head><link rel="stylesheet" href="{base}/a.css">'
        "<style>p { color: black }</style>"  # the page's own stylesheet, replaced by the print one
        f"<style>@import url('{base}/b.css'); body {{ background: url('{base}/c.png') }}</style></head>"
        f'<body><img src="{base}/d.png"><img src="file://{local}">'
        f'<p style="background: url({base}/e.png)">Hello</p></body></html>'
    )
    try:
        pdf_bytes = html_to_pdf(page)
    finally:
        server.shutdown()
    assert _Counter.hits == []
    assert "Hello" in pdf_text(pypdf.PdfReader(io.BytesIO(pdf_bytes)))
    refused = [r.getMessage() for r in caplog.records if "refused to load" in r.getMessage()]
    assert any(f"file://{local}" in line for line in refused)
    wanted = ("a.css", "b.css", "c.png", "d.png", "e.png")
    assert [name for name in wanted if any(name in line for line in refused)] == list(wanted)


# ---- Word ------------------------------------------------------------------------------------------


def test_word_headings_are_word_headings(word: docx.document.Document) -> None:
    headings = [(p.style.name, p.text) for p in word.paragraphs if p.style.name.startswith("Heading")]
    assert headings[0] == ("Heading 1", "React vs Vue: which should a new team pick?")
    assert ("Heading 2", "Answer") in headings and ("Heading 2", "Branch syntheses") in headings
    assert ("Heading 3", "1 How popular is React?") in headings
    assert headings[-1] == ("Heading 2", "Sources")  # the sources section comes last
    assert word.core_properties.title == "React vs Vue: which should a new team pick?"


def test_word_lists_are_list_paragraphs(word: docx.document.Document) -> None:
    styles = {p.text: p.style.name for p in word.paragraphs}
    assert styles["First step"] == "List Number" and styles["Second step"] == "List Number"
    assert any(name == "List Bullet" and text.startswith("React is used by 40%") for text, name in styles.items())
    sources = [p for p in word.paragraphs if p.text.startswith("[1] React")]
    assert sources and sources[0].style.name == "List Bullet"


def test_word_citations_link_to_their_source_and_web_links_are_hyperlinks(word: docx.document.Document) -> None:
    links = [link for p in word.paragraphs for link in p.hyperlinks]
    citations = {(link.text, link.fragment) for link in links if not link.address}
    assert ("[1]", "source_1") in citations and ("[3]", "source_3") in citations
    assert "https://react.dev/learn" in {link.address for link in links}
    assert not any(link.address.startswith(("javascript:", "http://tracker")) for link in links)
    body = word.element.body.xml
    assert 'w:name="source_1"' in body and 'w:name="source_4"' in body  # the bookmarks citations jump to
    source = next(p for p in word.paragraphs if p.text.startswith("[1] React"))
    assert [child.tag.rsplit("}", 1)[1] for child in source._p][:2] == ["pPr", "bookmarkStart"]  # schema order


def test_word_tables_and_quotes(word: docx.document.Document) -> None:
    assert len(word.tables) == 1
    cells = [[cell.text for cell in row.cells] for row in word.tables[0].rows]
    assert cells == [["Library", "Share"], ["React", "40%"], ["Vue", "18%"]]
    assert word.tables[0].rows[0].cells[0].paragraphs[0].runs[0].bold
    quotes = [p.text for p in word.paragraphs if p.style.name == "Quote"]
    assert any(REACT_QUOTE in q for q in quotes)


# ---- the export helper -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["pdf", "docx"])
def test_export_result_gives_bytes_a_file_name_and_the_mime_type(result: RunResult, fmt: str) -> None:
    content, name, mime = export_result(result, fmt)  # type: ignore[arg-type]
    assert isinstance(content, bytes) and name.endswith(f"-run-42ab.{fmt}") and mime == MIME_TYPES[fmt]
    assert content.startswith(b"%PDF" if fmt == "pdf" else b"PK")
