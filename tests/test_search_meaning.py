"""Library search ranks by meaning as well as by words: a page about the thing asked comes before
pages that only repeat its words (a stemmer makes "Windows" a "window").

The similarities come from the real bundled embedding model (all-MiniLM-L6-v2 run on numpy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_core.search import meaning_rank
from research_core.search.library import DocumentLibrary
from research_core.text import embedding

pytestmark = pytest.mark.skipif(not embedding.available(), reason="the bundled embedding model is not installed")

INSTALL_PAGES = [
    (
        f"install-windows-{n}.html",
        f"<html><head><title>Installation on Windows, part {n}</title></head><body>"
        f"<h1>Installing PostgreSQL on Windows, part {n}</h1>"
        "<p>PostgreSQL can be built on Windows with Visual C++. The build uses the functions of the "
        "Windows SDK, and the event log records the messages of the server.</p></body></html>",
    )
    for n in range(1, 7)
]
TUTORIAL = (
    "tutorial-window.html",
    "<html><head><title>3.5. Window Functions</title></head><body><h1>3.5. Window Functions</h1>"
    "<p>A window function performs a calculation across a set of table rows that are somehow related "
    "to the current row. The OVER clause determines exactly how the rows of the query are split up "
    "for processing by the window function; PARTITION BY divides the rows into groups.</p></body></html>",
)


@pytest.fixture()
def library(tmp_path: Path) -> DocumentLibrary:
    lib = DocumentLibrary(tmp_path / "arbor.db")
    for name, html in [*INSTALL_PAGES, TUTORIAL]:
        lib.add_text(name, html, kind="html")
    return lib


def test_the_page_about_window_functions_comes_before_pages_about_windows(library: DocumentLibrary) -> None:
    titles = [s.title for s in library.search("PostgreSQL window functions", 3)]
    assert titles[0] == "3.5. Window Functions"


def test_word_ranking_alone_puts_the_windows_pages_first(
    library: DocumentLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the meaning ranking fixes: without the model, bm25 ranks the tutorial below the
    pages that repeat "Windows" and "functions"."""
    monkeypatch.setattr(meaning_rank.embedding, "available", lambda: False)
    titles = [s.title for s in library.search("PostgreSQL window functions", 3)]
    assert "3.5. Window Functions" not in titles


def test_relevance_follows_the_new_order(library: DocumentLibrary) -> None:
    hits = library.search("PostgreSQL window functions", 5)
    assert [h.relevance for h in hits] == sorted((h.relevance for h in hits), reverse=True)
    assert hits[0].relevance == 1.0


def test_a_query_in_another_script_keeps_the_word_ranking(library: DocumentLibrary) -> None:
    assert meaning_rank.latin_script("PostgreSQL window functions")
    assert not meaning_rank.latin_script("ウィンドウ関数とは何ですか")


# two passages of Python 3.11's sqlite3.html, as the benchmark's library holds them
TRANSACTION_CONTROL = [
    "The sqlite3 module does not adhere to the transaction handling recommended by PEP 249.",
    "If the connection attribute isolation_level is not None, new transactions are implicitly opened before "
    "execute() and executemany() executes INSERT, UPDATE, DELETE, or REPLACE statements; for other statements, "
    "no implicit transaction handling is performed. Use the commit() and rollback() methods to respectively "
    "commit and roll back pending transactions. You can choose the underlying SQLite transaction behaviour - "
    "that is, whether and what type of BEGIN statements sqlite3 implicitly executes - via the isolation_level "
    "attribute.",
    "If isolation_level is set to None, no transactions are implicitly opened at all. This leaves the "
    "underlying SQLite library in autocommit mode, but also allows the user to perform their own transaction "
    "handling using explicit SQL statements. The underlying SQLite library autocommit mode can be queried "
    "using the in_transaction attribute.",
    "The executescript() method implicitly commits any pending transaction before execution of the given SQL "
    "script, regardless of the value of isolation_level.",
    "Changed in version 3.6: sqlite3 used to implicitly commit an open transaction before DDL statements. "
    "This is no longer the case.",
]
CURSOR_OBJECTS = [
    "lastrowid: Read-only attribute that provides the row id of the last inserted row. It is only updated "
    "after successful INSERT or REPLACE statements using the execute() method. For other statements, after "
    "executemany() or executescript(), or if the insertion failed, the value of lastrowid is left unchanged.",
    "rowcount: Read-only attribute that provides the number of modified rows for INSERT, UPDATE, DELETE, and "
    "REPLACE statements; is -1 for other statements, including CTE queries. It is only updated by the "
    "execute() and executemany() methods.",
    "row_factory: Control how a row fetched from this Cursor is represented. If None, a row is represented as "
    "a tuple. Can be set to the included sqlite3.Row; or a callable that accepts two arguments, a Cursor "
    "object and the tuple of row values, and returns a custom object representing an SQLite row.",
]
DB_API_PAGE = (
    "sqlite3.html",
    "<html><head><title>sqlite3 - DB-API 2.0 interface for SQLite databases</title></head><body>"
    "<h1>sqlite3 - DB-API 2.0 interface for SQLite databases</h1>"
    "<h2>Transaction control</h2>"
    + "".join(f"<p>{p}</p>" for p in TRANSACTION_CONTROL)
    + "<h2>Cursor objects</h2>"
    + "".join(f"<p>{p}</p>" for p in CURSOR_OBJECTS)
    + "</body></html>",
)


def test_a_hit_shows_the_passage_of_its_page_closest_in_meaning(tmp_path: Path) -> None:
    # round NN, flat m14: the words of the query chose the page's transaction-control passage, and the
    # run never saw rowcount, "the number of modified rows"
    lib = DocumentLibrary(tmp_path / "arbor.db")
    lib.add_text(*DB_API_PAGE, kind="html")
    [hit] = lib.search("Python sqlite3 module report rows statement changed", 1)
    assert "rowcount" in hit.snippet and hit.snippet.startswith("Cursor objects")
    # on words alone the transaction-control passage, which repeats the query's words, is the hit
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(meaning_rank.embedding, "available", lambda: False)
        [hit] = lib.search("Python sqlite3 module report rows statement changed", 1)
    assert "Transaction control" in hit.snippet and "rowcount" not in hit.snippet
