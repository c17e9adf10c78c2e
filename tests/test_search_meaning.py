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
