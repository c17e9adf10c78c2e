"""A branch about one side of a comparison takes no fact from the other side's manual."""

from research_core.research.other_side import other_sides_quote
from research_core.schemas import Source

QUESTION = (
    "How do PostgreSQL and SQLite differ in their JSON support: which functions does each provide, "
    "and how are JSON values stored?"
)
PG_BRANCH = "How are JSON values stored in PostgreSQL?"


def _page(sid: str, title: str, url: str) -> Source:
    return Source(id=sid, title=title, url=url, snippet="", backend="library")


FLEX = _page("flex", "The Advantages Of Flexible Typing", "/usr/share/doc/sqlite3/flextypegood.html")
PG_JSON = _page("pg", "8.14. JSON Types", "/usr/share/doc/postgresql-doc-15/html/datatype-json.html")
SQLITE_QUOTE = (
    'The json_tree and json_each table-valued functions that are built into SQLite both have a "value" column '
    "that can hold values of type INTEGER, REAL, or TEXT depending on the type of the corresponding JSON field."
)


def test_the_other_sides_manual_gives_no_fact_to_a_one_side_branch():
    # held-out round FF, m2 hierarchical: this quote was kept as a finding about PostgreSQL
    why = other_sides_quote(SQLITE_QUOTE, FLEX, PG_BRANCH, QUESTION, [FLEX, PG_JSON])
    assert why and "sqlite" in why and "postgresql" in why


def test_a_quote_naming_the_branchs_side_stays():
    quote = "The SQLite developers used the PostgreSQL window function documentation as their primary reference."
    assert other_sides_quote(quote, FLEX, PG_BRANCH, QUESTION, [FLEX, PG_JSON]) is None


def test_the_branchs_own_manual_the_flat_branch_and_unowned_pages_are_left_alone():
    own = "Because the json type stores an exact copy of the input text, it will preserve white space."
    assert other_sides_quote(own, PG_JSON, PG_BRANCH, QUESTION, [FLEX, PG_JSON]) is None
    assert other_sides_quote(SQLITE_QUOTE, FLEX, QUESTION, QUESTION, [FLEX, PG_JSON]) is None
    blog = _page("b", "JSON in databases", "https://example.org/json.html")
    assert other_sides_quote(SQLITE_QUOTE, blog, PG_BRANCH, QUESTION, [blog, PG_JSON]) is None


def test_a_branch_naming_no_documented_subject_is_left_alone():
    # every page is Apache's manual; the branch names the MPM, which owns no manual
    question = "How do Apache's prefork, worker and event MPMs differ in how they serve connections?"
    branch = "How does the prefork MPM serve connections?"
    page = _page(
        "m", "mpm_common - Apache HTTP Server Version 2.4", "/usr/share/doc/apache2-doc/manual/en/mod/mpm_common.html"
    )
    quote = "The MaxRequestWorkers directive sets the limit on the number of simultaneous requests that will be served."
    assert other_sides_quote(quote, page, branch, question, [page]) is None


def test_python_s_module_branch_takes_no_postgresql_fact():
    # the held-out probe's "In Python's sqlite3 module, isolation levels can be set using BEGIN TRANSACTION
    # ISOLATION LEVEL REPEATABLE READ", cited to PostgreSQL's SET TRANSACTION
    question = (
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions, and which "
        "settings of Python's sqlite3 module control transactions?"
    )
    branch = "Which settings of Python's sqlite3 module control transactions?"
    pg_page = _page("t", "SET TRANSACTION", "/usr/share/doc/postgresql-doc-15/html/sql-set-transaction.html")
    python_page = _page(
        "p",
        "sqlite3 — DB-API 2.0 interface for SQLite databases — Python 3.11.7 documentation",
        "/usr/share/doc/python3.11/html/library/sqlite3.html",
    )
    quote = "The transaction isolation level cannot be changed after the first query or data-modification statement."
    assert other_sides_quote(quote, pg_page, branch, question, [pg_page, python_page])
    own = "The isolation_level attribute controls the transaction handling implicitly performed by the sqlite3 module."
    assert other_sides_quote(own, python_page, branch, question, [pg_page, python_page]) is None
    # SQLite's own manual stays open to the module's branch: the module is SQLite's library ("sqlite3")
    sqlite_page = _page("s", "Transaction", "/usr/share/doc/sqlite3/lang_transaction.html")
    deferred = "Transactions can be DEFERRED, IMMEDIATE, or EXCLUSIVE. The default transaction behavior is DEFERRED."
    assert other_sides_quote(deferred, sqlite_page, branch, question, [sqlite_page, python_page]) is None
