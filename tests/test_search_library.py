"""DocumentLibrary on a real SQLite file: adding, refusing, replacing, removing and searching documents."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from research_core.documents.html_text import html_to_text
from research_core.documents.parsing import CHUNK_CHARS, MAX_FILE_BYTES, markdown_title, split_chunks
from research_core.search.base import MAX_SNIPPET_CHARS, SearchBackend, SearchError
from research_core.search.library import DocumentLibrary, LibraryError
from research_core.search.registry import EMPTY_LIBRARY_MESSAGE, check_backend
from tests.fakes.pdf_file import assemble_pdf


def pdf_bytes(lines: list[str], title: str | None = None) -> bytes:
    """A minimal one-page PDF showing `lines` in Helvetica (ASCII text only)."""

    def literal(text: str) -> str:
        return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"

    shown = " T* ".join(f"{literal(line)} Tj" for line in lines)
    content = f"BT /F1 12 Tf 14 TL 72 720 Td {shown} ET".encode("latin-1") if lines else b""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        f"<< /Title {literal(title or '')} >>".encode("latin-1"),
    ]
    return assemble_pdf(objects, b"/Info 6 0 R")


SECTIONS_MD = "\n\n".join(
    [
        "# Field notes on rivers",
        "Rivers carry sediment from mountains to the sea. " * 12,
        "## Deltas",
        "A delta forms where a river deposits sediment at its mouth; the Nile delta is the classic example. " * 6,
        "## Meanders",
        "Meanders migrate across the floodplain as the outer bank erodes and the inner bank gains point bars. " * 6,
        "## Oxbow lakes",
        "When a meander neck is cut through during a flood, the abandoned loop becomes an oxbow lake. " * 6,
    ]
)

PAGE_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Volcano &amp; magma FAQ</title>
<style>body { color: red } .lava { display: none }</style>
<script>var eruption = "should never be indexed";</script></head>
<body><h1>Volcanoes</h1>
<p>Basaltic magma is runny, so <b>Hawaiian</b> eruptions are effusive.</p>
<ul><li>Stratovolcanoes</li><li>Shield volcanoes</li></ul>
<noscript>Enable scripts</noscript>
</body></html>"""


@pytest.fixture
def library(db) -> DocumentLibrary:
    """A library once on each engine: SQLite FTS5, PostgreSQL full-text search."""
    return DocumentLibrary(db)


def execute(library: DocumentLibrary, sql: str) -> None:
    """Run one statement on the library's database, whichever engine it is."""
    engine = create_engine(library.location.sqlalchemy_url())
    with engine.begin() as conn:
        conn.exec_driver_sql(sql)
    engine.dispose()


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


# ---- adding ---------------------------------------------------------------------------


def test_adds_md_txt_html_and_pdf_files(library: DocumentLibrary, tmp_path: Path) -> None:
    md = library.add_file(write(tmp_path, "rivers.md", SECTIONS_MD))
    txt = library.add_file(write(tmp_path, "glaciers.txt", "Glacier notes\n\nGlaciers carve U-shaped valleys."))
    html = library.add_file(write(tmp_path, "volcano.html", PAGE_HTML))
    pdf = library.add_file(
        write(tmp_path, "tides.pdf", pdf_bytes(["Tides are caused by the Moon.", "Spring tides follow new moons."]))
    )

    assert (md.kind, md.title) == ("md", "Field notes on rivers")
    assert (txt.kind, txt.title) == ("txt", "Glacier notes")
    assert (html.kind, html.title) == ("html", "Volcano & magma FAQ")
    assert (pdf.kind, pdf.title) == ("pdf", "Tides are caused by the Moon.")
    assert md.chunks > 1 and 2000 < md.chars <= len(SECTIONS_MD)
    assert md.path == str((tmp_path / "rivers.md").resolve()) and md.url == md.path
    assert library.count() == 4
    assert {d.id for d in library.list_documents()} == {md.id, txt.id, html.id, pdf.id}
    assert library.get(pdf.id) == pdf

    hit = library.search("spring tides moon", 5)[0]
    assert hit.url == pdf.url + "#page=1" and "Spring tides follow new moons." in hit.snippet
    assert hit.title == "Tides are caused by the Moon., p. 1"


def test_pdf_title_comes_from_its_metadata(library: DocumentLibrary) -> None:
    doc = library.add_bytes("report.pdf", pdf_bytes(["Quarterly numbers went up."], title="Q3 Report"))
    assert doc.title == "Q3 Report" and doc.url == "library://report.pdf"


def test_add_bytes_and_add_text_use_library_urls(library: DocumentLibrary) -> None:
    up = library.add_bytes("C:\\Users\\me\\Desktop\\upload.md", b"---\ntitle: Front matter title\n---\n\nBody text.")
    text = library.add_text("pasted", "Some pasted prose about tectonic plates.")
    html = library.add_text("snippet.html", PAGE_HTML, kind="html")

    assert (up.name, up.url, up.title, up.path) == ("upload.md", "library://upload.md", "Front matter title", None)
    assert (text.url, text.kind) == ("library://pasted", "txt")
    assert html.title == "Volcano & magma FAQ"
    assert library.search("tectonic", 3)[0].url == "library://pasted"


def test_html_text_drops_scripts_and_styles() -> None:
    title, text = html_to_text(PAGE_HTML)

    assert title == "Volcano & magma FAQ"
    assert "Basaltic magma is runny, so Hawaiian eruptions are effusive." in text
    assert "Stratovolcanoes\n\nShield volcanoes" in text
    for hidden in ("eruption =", "color: red", "Enable scripts", "<p>"):
        assert hidden not in text


def test_markdown_title_is_the_first_heading() -> None:
    assert markdown_title("intro line\n\n## Second level first\n\n# Later") == "Second level first"
    assert markdown_title("Setext title\n=====\n\ntext") == "Setext title"
    assert markdown_title("no heading here") == ""


def test_utf16_and_bom_text_is_accepted(library: DocumentLibrary) -> None:
    assert library.add_bytes("win.txt", "Windows notepad text".encode("utf-16")).chars == 20
    assert library.add_bytes("bom.txt", b"\xef\xbb\xbfUTF-8 with a BOM").title == "UTF-8 with a BOM"


# ---- refusing -------------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("empty.txt", b"", "is empty"),
        ("blank.md", b"  \n\n\t \n", "has no text"),
        ("photo.txt", PNG, "looks like a PNG image"),
        ("photo.md", b"\x00\x01\x02binary", "looks like binary data"),
        ("latin1.txt", "café crème".encode("latin-1"), "not UTF-8 text"),
        ("report.txt", pdf_bytes(["hello"]), "Rename it to .pdf"),
        ("notes.pdf", b"These are plain notes, not a PDF.", "is not a PDF"),
        ("image.pdf", PNG, "looks like a PNG image"),
        ("scan.pdf", pdf_bytes([]), "no text layer on any of its 1 page(s)"),
        ("broken.pdf", b"%PDF-1.4\n1 0 obj garbage", "could not be read as a PDF"),
        ("slides.docx", b"PK\x03\x04rest", "is damaged: it is not a readable Word document"),
        ("slides.odp", b"PK\x03\x04rest", "unsupported file type '.odp'"),
        ("README", b"plain text", "without an extension"),
        ("only_script.html", b"<script>alert(1)</script>", "has no text"),
    ],
)
def test_refused_uploads_store_nothing(library: DocumentLibrary, name: str, data: bytes, fragment: str) -> None:
    library.add_text("keep.txt", "An existing document.")

    with pytest.raises(LibraryError) as caught:
        library.add_bytes(name, data)

    assert fragment in str(caught.value)
    assert name in str(caught.value)
    assert library.count() == 1
    assert [d.name for d in library.list_documents()] == ["keep.txt"]


def test_huge_uploads_and_files_are_refused(library: DocumentLibrary, tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match="up to 20 MB"):
        library.add_bytes("huge.txt", b"a" * (MAX_FILE_BYTES + 1))
    sparse = tmp_path / "huge.md"
    with sparse.open("wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # refused from its size, before reading
    with pytest.raises(LibraryError, match=r"huge.md' is 20.0 MB"):
        library.add_file(sparse)
    with pytest.raises(LibraryError, match="up to 20 MB"):
        library.add_text("huge", "a" * (MAX_FILE_BYTES + 1))
    assert library.count() == 0


def test_missing_file_and_bad_kind_are_refused(library: DocumentLibrary, tmp_path: Path) -> None:
    with pytest.raises(LibraryError, match="does not exist"):
        library.add_file(tmp_path / "nope.txt")
    with pytest.raises(LibraryError, match="kind must be one of"):
        library.add_text("x", "text", kind="pdf")
    with pytest.raises(LibraryError, match="binary data"):
        library.add_text("x", "nul\x00byte")


def test_a_failed_write_keeps_the_previous_version(library: DocumentLibrary, monkeypatch) -> None:
    old = library.add_text("doc.txt", "The original about aardvarks.")

    def failing_insert(conn, rows):
        raise OperationalError("INSERT INTO library_chunks", {}, Exception("disk I/O error"))

    monkeypatch.setattr(DocumentLibrary, "_insert_passages", staticmethod(failing_insert))
    with pytest.raises(LibraryError, match="could not be saved"):
        library.add_text("doc.txt", "A replacement about zebras.")
    monkeypatch.undo()

    assert library.list_documents() == [old]
    assert library.search("aardvarks", 5)[0].url == "library://doc.txt"
    assert library.search("zebras", 5) == []


# ---- replacing and removing -------------------------------------------------------------


def test_re_adding_the_same_name_or_path_replaces(library: DocumentLibrary, tmp_path: Path) -> None:
    first = library.add_text("doc.txt", "Alpha version about pelicans.")
    second = library.add_text("doc.txt", "Beta version about flamingos.")
    assert second.id == first.id and library.count() == 1
    assert library.search("pelicans", 5) == []
    assert "flamingos" in library.search("flamingos", 5)[0].snippet

    path = write(tmp_path, "paper.md", "# Draft\n\nCormorants dive.")
    one = library.add_file(path)
    path.write_text("# Final\n\nGannets plunge.", encoding="utf-8")
    two = library.add_file(path)
    assert two.id == one.id and two.title == "Final" and library.count() == 2
    assert library.search("cormorants", 5) == []
    assert library.search("gannets", 5)[0].title == "Final"


def test_remove(library: DocumentLibrary) -> None:
    doc = library.add_text("doc.txt", "Notes about basalt columns.")
    library.add_text("other.txt", "Notes about granite.")

    assert library.remove(doc.id) is True
    assert library.remove(doc.id) is False
    assert library.count() == 1
    assert library.search("basalt", 5) == []
    assert [s.title for s in library.search("notes", 5)] == ["Notes about granite."]


# ---- searching --------------------------------------------------------------------------


def test_search_returns_the_matching_passage(library: DocumentLibrary, tmp_path: Path) -> None:
    doc = library.add_file(write(tmp_path, "rivers.md", SECTIONS_MD))
    library.add_text("other.txt", "Deserts are dry. Sand dunes move with the wind.")

    hits = library.search("oxbow lake", 5)

    assert len(hits) == 1
    hit = hits[0]
    assert hit.url == doc.url and hit.backend == "library" and hit.title == "Field notes on rivers"
    assert "oxbow lake" in hit.snippet and "Nile delta" not in hit.snippet
    assert len(hit.snippet) <= CHUNK_CHARS <= MAX_SNIPPET_CHARS
    assert hit.relevance == 1.0


def test_one_best_passage_per_document_and_relevance_order(library: DocumentLibrary, tmp_path: Path) -> None:
    library.add_file(write(tmp_path, "rivers.md", SECTIONS_MD))  # "river" in several passages
    library.add_text("mention.txt", "A short note that mentions a river once, among many other words about hills.")

    hits = library.search("river sediment", 10)

    assert len({h.url for h in hits}) == len(hits) == 2
    assert hits[0].title == "Field notes on rivers"
    assert hits[0].relevance == 1.0 and 0.0 < hits[1].relevance < 1.0
    assert library.search("river", 1)[0].title == "Field notes on rivers"


@pytest.mark.parametrize(
    "query",
    [
        '"foo" AND (bar',
        "NEAR(river sediment",
        "*",
        "river*",
        "^river",
        "-river",
        "title:river",
        "{text} : river",
        "'river'",
        '"',
        "AND OR NOT",
        "(((",
        "river\x00sediment",
        "",
    ],
)
def test_fts_syntax_in_queries_never_raises(library: DocumentLibrary, tmp_path: Path, query: str) -> None:
    library.add_file(write(tmp_path, "rivers.md", SECTIONS_MD))
    results = library.search(query, 5)
    assert isinstance(results, list)
    if "river" in query:
        assert results and results[0].title == "Field notes on rivers"


def test_porter_stemming_matches_word_forms(library: DocumentLibrary) -> None:
    library.add_text("erosion.txt", "The outer bank erodes quickly during floods.")
    assert library.search("eroding flood", 5)[0].url == "library://erosion.txt"


def test_japanese_text_is_searchable(library: DocumentLibrary) -> None:
    doc = library.add_text(
        "energy-ja.md",
        "# 日本のエネルギー政策\n\n東京は日本の首都です。\n\n"
        "政府は再生可能エネルギーの導入を進めており、太陽光発電と洋上風力発電が拡大している。",
        kind="md",
    )
    library.add_text("english.txt", "Renewable energy policy in Germany relies on wind power.")

    assert doc.title == "日本のエネルギー政策"
    for query in ("再生可能エネルギー", "洋上風力発電の拡大", "日本の首都はどこですか", "首都", "太陽光", "東京 首都"):
        hits = library.search(query, 5)
        assert [h.url for h in hits] == ["library://energy-ja.md"], query
    assert "洋上風力発電" in library.search("洋上風力", 5)[0].snippet
    assert library.search("北海道", 5) == []


def test_search_errors_become_search_errors(library: DocumentLibrary) -> None:
    library.add_text("doc.txt", "Something to find.")
    execute(library, "DROP TABLE library_chunks")

    with pytest.raises(SearchError) as caught:
        library.search("something", 5)
    assert caught.value.backend == "library" and "could not be searched" in caught.value.user_message


def test_max_results_bounds(library: DocumentLibrary) -> None:
    for i in range(25):
        library.add_text(f"doc{i:02}.txt", f"Document number {i} about lighthouses.")
    assert len(library.search("lighthouses", 5)) == 5
    assert len(library.search("lighthouses", 100)) == 20
    assert library.search("lighthouses", 0) == []


# ---- storage ----------------------------------------------------------------------------


def test_shares_one_sqlite_file_in_wal_mode(tmp_path: Path) -> None:
    db = tmp_path / "arbor.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE runs (id TEXT PRIMARY KEY)")
    DocumentLibrary(db).add_text("doc.txt", "Persistent content about fjords.")

    reopened = DocumentLibrary(db)
    assert reopened.count() == 1 and reopened.search("fjords", 5)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "runs" in tables
    assert all(t == "runs" or t.startswith("library_") for t in tables)


def test_usable_from_several_threads(library: DocumentLibrary) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                library.add_text(f"t{n}-{i}.txt", f"Thread {n} writes note {i} about icebergs.")
                library.search("icebergs", 5)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert library.count() == 30


def test_is_a_search_backend_and_reports_its_state(library: DocumentLibrary) -> None:
    assert isinstance(library, SearchBackend) and library.name == "library"
    assert check_backend(library) == (False, EMPTY_LIBRARY_MESSAGE)
    library.add_text("doc.txt", "One document.")
    assert check_backend(library) == (True, "1 document")
    library.add_text("doc2.txt", "Two documents.")
    assert check_backend(library) == (True, "2 documents")


# ---- chunking ---------------------------------------------------------------------------


def test_chunks_follow_paragraphs_and_stay_bounded() -> None:
    paragraphs = [f"Paragraph {i}. " + ("word " * 100).strip() for i in range(12)]
    chunks = split_chunks("\n\n".join(paragraphs))

    assert all(len(c) <= CHUNK_CHARS for c in chunks)
    assert all(c.startswith("Paragraph") for c in chunks)  # no paragraph is cut
    assert "\n\n".join(chunks) == "\n\n".join(paragraphs)


@pytest.mark.parametrize("text", ["word " * 2000, "x" * 4000, "日本語の文です。" * 800, "line\n" * 1200])
def test_long_paragraphs_are_split_too(text: str) -> None:
    chunks = split_chunks(text)
    assert len(chunks) > 1
    assert all(0 < len(c) <= CHUNK_CHARS for c in chunks)
    assert "".join(chunks).replace(" ", "").replace("\n", "") == text.replace(" ", "").replace("\n", "")


def test_common_words_do_not_match_every_document(library: DocumentLibrary) -> None:
    library.add_text("owls.txt", "The barn owl hunts at night in the fields.")
    library.add_text("bees.txt", "The honey bee is in the hive for the winter.")

    assert [h.url for h in library.search("what is the diet of the barn owl?", 5)] == ["library://owls.txt"]
    assert len(library.search("the", 5)) == 2  # a query of common words only still searches


def test_a_page_titled_with_the_query_ranks_above_a_page_that_only_mentions_its_words(
    library: DocumentLibrary,
) -> None:
    """bm25 over passages alone prefers the file-format page that mentions the write-ahead log;
    the page whose title is the query's words is the one a reader wants first."""
    for topic in ("Vacuum", "Indexes", "Triggers", "Views", "Pragmas", "Backups"):  # words are rare, as in a manual
        library.add_text(f"{topic}.md", f"# {topic}\n\n{topic} are described on this page of the manual.", kind="md")
    library.add_text(
        "fileformat.md",
        "# Database File Format\n\nThe write-ahead log index maps pages to frames of the log file.",
        kind="md",
    )
    library.add_text(
        "wal.md",
        "# Write-Ahead Logging\n\nIn WAL mode, readers keep reading while one writer appends its changes; "
        "a checkpoint copies them back into the database later.",
        kind="md",
    )
    assert [s.title for s in library.search("write-ahead logging", 2)] == [
        "Write-Ahead Logging",
        "Database File Format",
    ]


def test_html_navigation_is_left_out_unless_it_would_swallow_the_page() -> None:
    body = "Magma rises through the crust where plates part. " * 6
    page = (
        '<html><body><nav><a href="/">Home</a> <a href="/faq">FAQ</a></nav>'
        '<div role="navigation"><div><a href="/prev">Previous topic</a></div></div>'
        f"<main><p>{body}</p></main>"
        '<form role="search"><input role="search" name="q"> Quick search</form><p>Footer note.</p></body></html>'
    )
    _, text = html_to_text(page)
    assert "Magma rises" in text and "Footer note." in text
    assert "Home" not in text and "Previous topic" not in text and "Quick search" not in text
    _, swallowed = html_to_text(f"<nav><ul><li>Menu<li>Links</ul><p>{body}</p>")  # the <nav> never closes
    assert "Magma rises" in swallowed and "Menu" in swallowed
