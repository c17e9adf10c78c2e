"""One compared system is never made a part of another ("PostgreSQL ... its SQLite database")."""

from research_core.synthesis.evidence import build_evidence
from research_core.synthesis.grounding import ground_text
from research_core.synthesis.owned_option import owned_option

SQLITE_WINDOW = {
    "title": "Window Functions",
    "url": "/usr/share/doc/sqlite3/windowfunctions.html",
    "snippet": "",
}
PG_SELECT = {
    "title": "SELECT",
    "url": "/usr/share/doc/postgresql-doc-15/html/sql-select.html",
    "snippet": "",
}
QUOTES = {
    "s": [
        "Window function support was first added to SQLite with release version 3.25.0 (2018-09-15). The SQLite "
        "developers used the PostgreSQL window function documentation as their primary reference."
    ],
    "p": ["PostgreSQL supports window functions, which are computed over the rows of a window frame."],
}
TOPIC = "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
NAMES = ("PostgreSQL", "SQLite", "OVER")
SOURCES = {"s": SQLITE_WINDOW, "p": PG_SELECT}


def test_a_system_given_the_other_systems_release_is_removed():
    text = (
        "PostgreSQL supports window functions by adding them to its SQLite database in release version 3.25.0 "
        "(2018-09-15) [[src:s]] [[src:p]]."
    )
    out = ground_text(text, SOURCES, QUOTES, NAMES, TOPIC)
    assert "its SQLite database" not in out.text
    assert "PostgreSQL supports window functions by adding" not in out.text


def test_a_release_of_one_system_is_not_given_to_the_other_when_both_sides_are_cited():
    # round-DD follow-up run: each side cited, SQLite named, and SQLite's release still handed to PostgreSQL
    pg_functions = {
        "title": "9.22. Window Functions",
        "url": "/usr/share/doc/postgresql-doc-15/html/functions-window.html",
        "snippet": "",
    }
    sources = {"s": SQLITE_WINDOW, "p": pg_functions}
    quotes = {
        "s": QUOTES["s"],
        "p": [
            "Window functions provide the ability to perform calculations across sets of rows that are related "
            "to the current query row."
        ],
    }
    text = (
        "PostgreSQL supports window functions by adding them to SQLite with release version 3.25.0 (2018-09-15) "
        "[[src:s]] [[src:p]]."
    )
    out = ground_text(text, sources, quotes, NAMES, TOPIC)
    assert "PostgreSQL supports window functions by adding" not in out.text
    kept = "SQLite features window functions based on those of PostgreSQL, added in release version 3.25.0 [[src:s]]."
    quotes["s"] = [*QUOTES["s"], "SQLite features window functions based on those of PostgreSQL."]
    assert "added in release version 3.25.0" in ground_text(kept, sources, quotes, NAMES, TOPIC).text


def test_the_same_fact_said_of_its_own_system_stays():
    text = "Window functions were first added to SQLite with release version 3.25.0 (2018-09-15) [[src:s]]."
    out = ground_text(text, SOURCES, QUOTES, NAMES, TOPIC)
    assert "first added to SQLite with release version 3.25.0" in out.text


def test_parts_of_one_manual_may_own_each_other_and_a_longer_name_is_not_the_system():
    evidence = build_evidence(SOURCES, QUOTES, NAMES)
    # OVER has no manual of its own: PostgreSQL's OVER clause is PostgreSQL's
    assert owned_option("PostgreSQL's OVER clause names a window", ["s", "p"], evidence, NAMES) is None
    python = {"title": "sqlite3", "url": "/usr/share/doc/python3.11/html/library/sqlite3.html", "snippet": ""}
    sources = {"s": SQLITE_WINDOW, "y": python}
    names = ("Python", "SQLite")
    evidence = build_evidence(sources, {}, names)
    assert owned_option("Python's sqlite3 module opens a connection", ["s", "y"], evidence, names) is None
    reason = owned_option("Python stores rows in its SQLite database", ["s", "y"], evidence, names)
    assert reason == "makes sqlite a part of python: each is documented on its own"
