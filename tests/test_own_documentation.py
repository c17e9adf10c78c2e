"""A query naming a product ranks that product's own documentation first, before the step's merge."""

from __future__ import annotations

from research_core.configuration import build_run_config
from research_core.research.own_documentation import own_documentation_first
from research_core.research.searching import run_searches
from research_core.schemas import Source
from research_core.search.library import DocumentLibrary
from research_core.services import Services
from research_core.text.names import named_as_word

NAMES = ["PostgreSQL", "SQLite", "Python"]


def _source(url: str, relevance: float) -> Source:
    return Source.make(url, url.rsplit("/", 1)[-1], "text", relevance, "library")


def test_the_named_products_manual_comes_first_with_the_querys_best_score():
    results = [
        _source("/usr/share/doc/sqlite3/lang_upsert.html", 1.0),
        _source("/usr/share/doc/postgresql-doc-15/html/sql-insert.html", 0.73),
        _source("https://example.org/blog/upserts", 0.6),
    ]
    ranked = own_documentation_first("PostgreSQL write upsert CONFLICT", NAMES, results)
    assert [s.url.rsplit("/", 1)[-1] for s in ranked] == ["sql-insert.html", "upserts", "lang_upsert.html"]
    assert [s.relevance for s in ranked] == [1.0, 0.73, 0.6]


def test_a_query_naming_no_product_keeps_the_search_order():
    results = [_source("/usr/share/doc/sqlite3/lang_upsert.html", 1.0), _source("/doc/postgresql/insert.html", 0.7)]
    assert own_documentation_first("write an upsert with ON CONFLICT", NAMES, results) == results


def test_a_module_named_after_a_product_is_not_that_product():
    # Python's sqlite3 module is Python's: its query does not ask for SQLite's own manual
    assert named_as_word("Python sqlite3 module report rows statement changed", NAMES) == ["python"]
    assert named_as_word("Python's sqlite3", NAMES) == ["python"]
    assert named_as_word("sqlite3 rowcount", NAMES) == []
    assert named_as_word("SQLite foreign keys", NAMES) == ["sqlite"]


def test_a_step_searching_each_product_shows_each_ones_own_page_first(tmp_path):
    pages = {
        "sqlite3/lang_upsert.md": (
            "# UPSERT\n\nUPSERT in SQLite follows the syntax established by PostgreSQL. An upsert is an "
            "INSERT with an ON CONFLICT clause; the upsert conflict target names the unique index, and the "
            "upsert does update or does nothing on conflict."
        ),
        "sqlite3/lang_conflict.md": (
            "# The ON CONFLICT clause\n\nThe ON CONFLICT clause of SQLite resolves a conflict: an upsert on "
            "conflict may abort, fail, ignore or replace."
        ),
        "postgresql-doc-15/sql-insert.md": (
            "# INSERT\n\nINSERT inserts new rows into a table. The optional ON CONFLICT clause specifies an "
            "alternative action to raising a unique violation error: DO NOTHING or DO UPDATE."
        ),
    }
    library = DocumentLibrary(tmp_path / "arbor.db")
    for name, text in pages.items():
        path = tmp_path / "manuals" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        library.add_file(path)
    services = Services(llm=None, backends=[library], config=build_run_config())  # type: ignore[arg-type]
    queries = ["PostgreSQL upsert conflict", "SQLite upsert conflict"]
    found, _, warnings = run_searches(services, queries, 5, "sq_001", products=NAMES)
    assert not warnings
    # the step's two best sources are each product's own page, whatever the words say
    assert {s.title for s in found[:2]} == {"INSERT", "UPSERT"}
    assert found[0].relevance == found[1].relevance == 1.0


def test_a_query_naming_every_product_keeps_the_search_order():
    # a page comparing them all answers such a query better than any one product's manual
    results = [
        _source("https://example.org/survey", 1.0),
        _source("/usr/share/doc/sqlite3/lang_upsert.html", 0.8),
        _source("/usr/share/doc/postgresql-doc-15/html/sql-insert.html", 0.7),
    ]
    assert own_documentation_first("PostgreSQL and SQLite upserts in Python", NAMES, results) == results


class RankedSearch:
    """A backend answering every query with the same ranked pages, as many as asked for."""

    name = "ranked"

    def __init__(self, urls: list[str]):
        self.urls = urls
        self.asked: list[int] = []

    def search(self, query: str, max_results: int) -> list[Source]:
        self.asked.append(max_results)
        return [_source(url, round(1.0 - i / 20, 2)) for i, url in enumerate(self.urls[:max_results])]


def test_a_product_whose_page_the_other_products_pages_push_out_is_still_searched():
    # for the Python clause's query the library ranked five of SQLite's C-interface and pragma pages
    # first, and Python's sqlite3 page (with Cursor.rowcount) sixth
    urls = [f"/usr/share/doc/sqlite3/c3ref/page{i}.html" for i in range(5)]
    urls.append("/usr/share/doc/python3.11/html/library/sqlite3.html")
    backend = RankedSearch(urls)
    services = Services(llm=None, backends=[backend], config=build_run_config())  # type: ignore[arg-type]
    query = "Python sqlite3 module report rows statement changed"
    found, _, _ = run_searches(services, [query], 5, "sq_001", products=NAMES)
    assert len(found) == 5 and found[0].url.endswith("python3.11/html/library/sqlite3.html")
    # a query naming no product asks for the usual number
    run_searches(services, ["report rows statement changed"], 5, "sq_001", products=NAMES)
    assert backend.asked == [10, 5]
