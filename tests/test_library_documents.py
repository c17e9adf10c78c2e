"""Office files in the library: each passage keeps its page, slide, sheet rows or section, up to the citation.

The last test runs the engine (scripted LLM) over office files and reads the Run page and the export.
"""

from __future__ import annotations

import sqlite3

import pytest

from research_core.documents.parsing import parse_document
from research_core.output.export import to_markdown
from research_core.search.library import DocumentLibrary
from tests.conftest import DOCUMENTS
from tests.office_files import docx_file, pdf_file, pptx_file, xlsx_file
from tests.test_app_pages import QUESTION, app, no_exception, open_page, run_config, runner_for, texts
from tests.test_export import make_result


@pytest.fixture
def library(tmp_path) -> DocumentLibrary:
    return DocumentLibrary(tmp_path / "arbor.db")


def only(library: DocumentLibrary, query: str):
    hits = library.search(query, 5)
    assert hits, f"no hit for {query!r}"
    return hits[0]


def test_a_pdf_passage_is_cited_at_its_page(library: DocumentLibrary) -> None:
    data = pdf_file(["Introduction to the annual report.", "Revenue grew by twelve percent in the northern region."])
    doc = library.add_bytes("report.pdf", data)
    assert doc.kind == "pdf" and doc.note == ""
    hit = only(library, "northern revenue")
    assert hit.url == "library://report.pdf#page=2"
    assert hit.title.endswith(", p. 2") and "Revenue grew by twelve percent" in hit.snippet
    assert only(library, "introduction annual").url == "library://report.pdf#page=1"


def test_a_word_passage_is_cited_at_its_section_and_tables_are_indexed(library: DocumentLibrary) -> None:
    sections = {
        "": ["The operations handbook for the data team."],
        "Installation": ["Run the installer with administrator rights."],
        "Backups": ["Nightly backups are copied to the storage appliance in the basement."],
    }
    data = docx_file(sections, title="Operations handbook", table=[["System", "Owner"], ["Warehouse", "Kimura"]])
    library.add_bytes("handbook.docx", data)
    hit = only(library, "nightly backups basement")
    assert hit.title == "Operations handbook, section “Backups”"
    assert hit.url == "library://handbook.docx#section=Backups"
    assert "Warehouse | Kimura" in only(library, "Kimura warehouse").snippet
    assert only(library, "handbook data team").title == "Operations handbook"  # text before any heading


def test_a_slide_passage_is_cited_at_its_slide_with_its_notes(library: DocumentLibrary) -> None:
    slides = [("Agenda", "Welcome and goals"), ("Market", "Competitors and pricing"), ("Roadmap", "Launch in March")]
    library.add_bytes("strategy.pptx", pptx_file(slides, notes={3: "Mention the supplier delay."}))
    hit = only(library, "launch roadmap")
    assert hit.url == "library://strategy.pptx#slide=3" and hit.title == "strategy, slide 3"
    assert "Notes: Mention the supplier delay." in hit.snippet


def test_a_sheet_passage_is_cited_at_its_sheet_and_rows_with_the_header(library: DocumentLibrary) -> None:
    rows: list[list[object]] = [["Region", "Quarter", "Revenue"]]
    rows += [[f"Region {n}", "Q1", n * 10] for n in range(2, 300)]
    rows[250][0] = "Hokkaido"
    costs = [["Item", "Cost"], ["Rent", 1200]]
    library.add_bytes("sales.xlsx", xlsx_file({"Sales": rows, "Costs": costs}))
    hit = only(library, "Hokkaido")
    assert hit.url.startswith("library://sales.xlsx#sheet=Sales&rows=")
    first, last = (int(n) for n in hit.url.rsplit("=", 1)[1].split("-"))
    assert first <= 251 <= last and ", sheet Sales, rows " in hit.title
    assert hit.snippet.startswith("Region | Quarter | Revenue\n")  # each passage repeats the header
    assert only(library, "rent").title == "sales, sheet Costs, rows 1–2"


def test_a_csv_passage_is_cited_at_its_rows(library: DocumentLibrary) -> None:
    library.add_bytes("staff.csv", b"name;team\nAiko;platform\nBram;search\n")
    hit = only(library, "Bram search")
    assert hit.url == "library://staff.csv#rows=1-3" and hit.title == "staff, rows 1–3"
    assert "Bram | search" in hit.snippet


def test_the_place_reaches_the_reports_sources_list(library: DocumentLibrary) -> None:
    library.add_bytes("report.pdf", pdf_file(["Cover.", "Revenue grew by 12% in the north."], title="Annual report"))
    source = only(library, "revenue north")
    result = make_result().model_copy(update={"sources": [source], "sub_questions": [], "final_answer": "Up [1]."})
    markdown = to_markdown(result)
    assert "[1] **Annual report, p. 2** (library) — library://report.pdf#page=2" in markdown


def test_a_file_path_keeps_its_place_too(library: DocumentLibrary, tmp_path) -> None:
    path = tmp_path / "notes.pptx"
    path.write_bytes(pptx_file([("One", "alpha"), ("Two", "bravo charlie")]))
    library.add_file(path)
    assert only(library, "bravo").url == f"{path.resolve()}#slide=2"


def test_a_library_made_before_places_opens_and_indexes_with_them(tmp_path) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE library_documents (id TEXT PRIMARY KEY, key TEXT NOT NULL, name TEXT NOT NULL, path TEXT,"
        " url TEXT NOT NULL, title TEXT NOT NULL, kind TEXT NOT NULL, chars INTEGER NOT NULL,"
        " chunks INTEGER NOT NULL, added_at TEXT NOT NULL);"
        "CREATE TABLE library_chunks (id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL, ord INTEGER NOT NULL,"
        " text TEXT NOT NULL);"
        "INSERT INTO library_documents VALUES ('d1', 'name:a.txt', 'a.txt', NULL, 'library://a.txt', 'A', 'txt',"
        " 10, 1, '2026-01-01');"
    )
    conn.commit()
    conn.close()
    library = DocumentLibrary(db)
    assert [d.note for d in library.list_documents()] == [""]
    library.add_bytes("deck.pptx", pptx_file([("Zebra", "zebras are striped")]))
    assert only(library, "zebras").url == "library://deck.pptx#slide=1"


def test_parsed_text_keeps_every_segment_in_order() -> None:
    parsed = parse_document("d.pptx", pptx_file([("First", "one"), ("Second", "two")]))
    assert [s.place.label() for s in parsed.segments if s.place] == ["slide 1", "slide 2"]
    assert parsed.text.index("First") < parsed.text.index("Second")


def test_a_run_over_office_files_cites_their_places_on_the_run_page_and_in_the_exports(env: dict) -> None:
    library = DocumentLibrary(env["db"])
    for doc in library.list_documents():  # the same texts come back as office files
        library.remove(doc.id)
    pages = ["Database notes for the web team.", DOCUMENTS["sqlite-notes.md"].split("\n\n", 1)[1]]
    library.add_bytes("sqlite-notes.pdf", pdf_file(pages, title="SQLite notes"))
    slides = [("PostgreSQL", "Overview"), ("Writers", DOCUMENTS["postgres-notes.md"].split("\n\n", 1)[1])]
    library.add_bytes("postgres.pptx", pptx_file(slides))
    rows = [["System", "Verdict"], ["Both", DOCUMENTS["comparison.txt"]]]
    library.add_bytes("comparison.xlsx", xlsx_file({"Verdicts": rows}))
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    result = runner.result(snap.run_id)
    titles = {s.title for s in result.sources}
    assert "SQLite notes, p. 2" in titles and "postgres, slide 2" in titles, titles
    markdown = to_markdown(result)
    assert "**SQLite notes, p. 2**" in markdown and "library://sqlite-notes.pdf#page=2" in markdown
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "SQLite notes, p. 2" in texts(at.markdown)  # the Run page's findings name their sources
