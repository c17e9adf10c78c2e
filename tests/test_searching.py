"""The results a step keeps: a command page whose best passage is its synopsis is read further, not refused."""

from research_core.research.navigation import list_reason, page_navigation_reason
from research_core.research.searching import keep_relevant
from research_core.search.library import DocumentLibrary

SYNOPSIS = "\n".join(
    [
        "EXPLAIN [ ( option [, ...] ) ] statement",
        "EXPLAIN [ ANALYZE ] [ VERBOSE ] statement",
        "where option can be one of:",
        "ANALYZE [ boolean ]",
        "VERBOSE [ boolean ]",
        "COSTS [ boolean ]",
        "SETTINGS [ boolean ]",
        "BUFFERS [ boolean ]",
        "WAL [ boolean ]",
        "TIMING [ boolean ]",
        "SUMMARY [ boolean ]",
        "FORMAT { TEXT | XML | JSON | YAML }",
        *(f"OPTION_{i} [ boolean ]" for i in range(70)),
    ]
)
PAGE = (
    "# EXPLAIN\n\nEXPLAIN — show the execution plan of a statement\n\n## Synopsis\n\n"
    + SYNOPSIS
    + "\n\n## Parameters\n\n"
    + "The planner estimates the cost of every plan it considers and chooses the cheapest one it finds. " * 14
    + "\n\n## Description\n\nWith the ANALYZE option, EXPLAIN actually executes the statement and shows the true "
    "row counts and true run time accumulated within each plan node, along with the estimates a plain EXPLAIN shows.\n"
)
QUESTION = "What does EXPLAIN ANALYZE show in PostgreSQL?"


def _library(tmp_path):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("sql-explain.md", PAGE, kind="md")
    return library


def test_a_synopsis_is_a_list_but_its_page_is_not_navigation():
    assert list_reason(SYNOPSIS)
    assert page_navigation_reason("EXPLAIN", "/usr/share/doc/postgresql-doc-15/html/sql-explain.html") is None


def test_a_page_whose_file_is_named_like_a_change_log_is_judged_by_its_title():
    # round MM, flat m14: SQLite's reference of sqlite3_changes() was refused as "a navigation page (changes)"
    assert (
        page_navigation_reason("Count The Number Of Rows Modified", "/usr/share/doc/sqlite3/c3ref/changes.html") is None
    )
    assert page_navigation_reason("Release History Of SQLite", "/usr/share/doc/sqlite3/changes.html")
    assert page_navigation_reason("", "https://example.org/changes.html")
    assert (
        page_navigation_reason("Index Of A Parameter With A Given Name", "/sqlite3/c3ref/bind_parameter_index.html")
        is None
    )
    # an index page keeps its file name's verdict whatever its title
    assert page_navigation_reason("The Python Standard Library", "/usr/share/doc/python3.11/html/library/index.html")


def test_a_command_page_shown_by_its_synopsis_is_read_at_its_prose(tmp_path):
    # held-out round FF, s7: sql-explain.html was refused as "a list of links" and the run found nothing
    library = _library(tmp_path)
    found = [s for s in library.search("EXPLAIN ANALYZE VERBOSE boolean", 5) if list_reason(s.snippet)]
    assert found, "the synopsis passage should be the search's best passage for the option list"
    kept, log = keep_relevant(QUESTION.replace(" in PostgreSQL", ""), found, 5, "sq_000", [library])
    assert len(kept) == 1
    assert "true row counts and true run time" in kept[0].snippet
    assert not log


def test_without_a_backend_that_reads_further_the_list_is_still_refused(tmp_path):
    library = _library(tmp_path)
    found = [s for s in library.search("EXPLAIN ANALYZE VERBOSE boolean", 5) if list_reason(s.snippet)]
    kept, log = keep_relevant(QUESTION.replace(" in PostgreSQL", ""), found, 5, "sq_000")
    assert kept == []
    assert "a list of links" in log[0]["message"]
