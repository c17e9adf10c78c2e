"""A branch's first searches with the local model: written by code, one per named subject, no model call."""

from __future__ import annotations

from research_core.research.first_queries import first_queries
from tests.conftest import library_run
from tests.fakes.llm_server import ScriptedLLM


def test_a_question_naming_two_subjects_searches_each_of_them():
    queries = first_queries("How do PostgreSQL and SQLite handle concurrent writes and locking?")
    assert queries == [
        "How do PostgreSQL and SQLite handle concurrent writes and locking?",
        "PostgreSQL concurrent writes locking",
        "SQLite concurrent writes locking",
    ]


def test_a_question_naming_one_subject_also_searches_its_keywords_without_the_frame():
    # "support" and "window" searched as a question find PostgreSQL's Supported Platforms and
    # Installation on Windows pages; the keywords find its window-function chapters
    assert first_queries("How do PostgreSQL support window functions?") == [
        "How do PostgreSQL support window functions?",
        "PostgreSQL window functions",
    ]
    assert first_queries("What does the SQLite VACUUM command do?") == [
        "What does the SQLite VACUUM command do?",
        "SQLite VACUUM command",
    ]
    assert first_queries("SQLite VACUUM command") == ["SQLite VACUUM command"]
    assert first_queries("VACUUM?") == ["VACUUM?"]


def test_each_clause_of_a_question_of_several_clauses_gets_its_own_keyword_queries():
    # mixed into one query, the Python clause's words pulled SQLite's C interface pages before
    # either product's upsert page
    question = (
        "How do PostgreSQL and SQLite write an upsert with ON CONFLICT, and how does Python's sqlite3 module "
        "report how many rows a statement changed?"
    )
    assert first_queries(question) == [
        question,
        "PostgreSQL write upsert CONFLICT",
        "SQLite write upsert CONFLICT",
        "Python's sqlite3 module report rows statement changed",
    ]
    # a clause of one keyword is searched as it is written
    vacuum = "Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?"
    assert "how does autovacuum work" in first_queries(vacuum)


def test_a_clause_that_refers_back_by_a_pronoun_searches_what_it_refers_to():
    # round MM, m12: "must done SQLite before enforced" found SQLite's locking and virtual-table pages
    question = (
        "How do PostgreSQL and SQLite enforce foreign key constraints, and what must be done in SQLite "
        "before they are enforced?"
    )
    assert first_queries(question)[-1] == "must done SQLite before enforced foreign key constraints"
    question = (
        "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
    )
    assert "PostgreSQL window functions" in first_queries(question)
    # a clause naming no subject borrows the question's names instead, and one with no pronoun stays as it is
    assert first_queries("Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?")[
        1:
    ] == ["PostgreSQL VACUUM", "how does autovacuum work", "settings tune PostgreSQL VACUUM"]


def test_a_compound_term_keeps_its_generic_tail():
    # "foreign constraints" finds CREATE FOREIGN TABLE; "key" is the topic here, not "the key differences"
    question = "How do PostgreSQL and SQLite enforce foreign key constraints?"
    assert "PostgreSQL enforce foreign key constraints" in first_queries(question)
    assert first_queries("What are the key differences between PostgreSQL and SQLite?")[1:] == ["PostgreSQL", "SQLite"]


def _one_step_flat_run(tmp_path, pages: dict[str, str], question: str, scripted: ScriptedLLM, **runner_options):
    """A flat run of one research step over a library of `pages` (file name -> Markdown); (runner, snapshot)."""
    return library_run(
        tmp_path,
        pages,
        question,
        scripted,
        sub_question_min_iterations=1,
        sub_question_max_iterations=1,
        max_iterations=2,
        **runner_options,
    )


def test_the_local_model_is_not_asked_for_the_first_queries(tmp_path):
    pages = {
        "sqlite-locking.md": "# SQLite locking\n\nSQLite allows many concurrent readers but only one writer at a time.",
        "postgres-mvcc.md": (
            "# PostgreSQL concurrency\n\nPostgreSQL uses MVCC so concurrent writers lock only the rows they change."
        ),
    }
    scripted = ScriptedLLM()
    question = "How do PostgreSQL and SQLite handle concurrent writes?"
    runner, snap = _one_step_flat_run(tmp_path, pages, question, scripted, provider="local")
    calls = [task for task, _ in scripted.recorded_calls()]
    assert snap.status == "completed", snap.error
    assert "plan_queries" not in calls and "extract_findings" in calls
    result = runner.result(snap.run_id)
    first = next(e for e in result.log if e.kind == "queries")
    assert "PostgreSQL concurrent writes" in first.message and "SQLite concurrent writes" in first.message
    assert "no model call" in first.reasoning
    # each subject's page was searched for and read
    assert {s.title for s in result.sources} >= {"SQLite locking", "PostgreSQL concurrency"}


def test_every_query_of_a_comparison_carries_what_it_compares(tmp_path):
    pages = {
        "sqlite-fts5.md": (
            "# SQLite FTS5\n\nFull-text search queries in SQLite use the MATCH operator on an FTS5 table."
        ),
        "sqlite-select.md": (
            "# SQLite SELECT\n\nQueries in SQLite are written with SELECT statements and a WHERE clause."
        ),
    }
    planned = '{"queries": ["How are queries written in SQLite?"], "reasoning": "the query syntax"}'
    question = "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, how are queries written?"
    runner, snap = _one_step_flat_run(tmp_path, pages, question, ScriptedLLM(script={"plan_queries": [planned]}))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    searched = next(e for e in result.log if e.kind == "queries")
    assert "How are queries written in SQLite? full-text search" in searched.message
    assert "SQLite FTS5" in {s.title for s in result.sources}


def test_the_first_step_of_a_question_naming_one_system_searches_its_keywords_too(tmp_path):
    pages = {
        "postgresql-window-functions.md": (
            "# PostgreSQL window functions\n\nA window function performs a calculation across a set of table rows "
            "that are related to the current row. Window functions must be invoked with an OVER clause."
        ),
    }
    question = "How do PostgreSQL support window functions?"
    runner, snap = _one_step_flat_run(tmp_path, pages, question, ScriptedLLM(), provider="local")
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    searched = next(e for e in result.log if e.kind == "queries")
    assert "'PostgreSQL window functions'" in searched.message
    assert "PostgreSQL window functions" in {s.title for s in result.sources}
