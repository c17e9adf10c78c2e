"""A clause comparing named options is answered only when each option has a finding from a source about it."""

from __future__ import annotations

import json

from research_core.research.part_coverage import unquoted_names
from research_core.research.side_coverage import missing_for, missing_sides, missing_subjects
from tests.conftest import library_run
from tests.fakes.llm_server import ScriptedLLM, _tag, _user_text, numbered_sentences

UPSERT_QUESTION = (
    "How do PostgreSQL and SQLite write an upsert with ON CONFLICT, and how does Python's sqlite3 module "
    "report how many rows a statement changed?"
)
SQLITE_PAGE = {
    "id": "s1",
    "title": "UPSERT",
    "url": "/usr/share/doc/sqlite3/lang_upsert.html",
    "snippet": "UPSERT in SQLite follows the syntax established by PostgreSQL.",
}
PYTHON_PAGE = {
    "id": "p1",
    "title": "sqlite3 — DB-API 2.0 interface for SQLite databases",
    "url": "/usr/share/doc/python3.11/html/library/sqlite3.html",
    "snippet": "rowcount: the number of modified rows.",
}
POSTGRES_PAGE = {
    "id": "g1",
    "title": "INSERT",
    "url": "/usr/share/doc/postgresql-doc-15/html/sql-insert.html",
    "snippet": "ON CONFLICT DO UPDATE updates the existing row.",
}


def test_an_option_whose_manual_gave_no_finding_is_a_missing_side():
    findings = [{"source_ids": ["s1"]}, {"source_ids": ["p1"]}]
    # SQLite's page names PostgreSQL, but it is SQLite's manual: PostgreSQL's side is still missing
    assert missing_sides(UPSERT_QUESTION, findings, [SQLITE_PAGE, PYTHON_PAGE]) == ["PostgreSQL write upsert CONFLICT"]
    findings.append({"source_ids": ["g1"]})
    assert missing_sides(UPSERT_QUESTION, findings, [SQLITE_PAGE, PYTHON_PAGE, POSTGRES_PAGE]) == []


def test_a_web_page_counts_for_the_options_it_names_and_a_question_comparing_nothing_has_no_sides():
    web = {"id": "w1", "title": "Upserts compared", "url": "https://example.org/upserts", "snippet": "SQLite only."}
    assert missing_sides(UPSERT_QUESTION, [{"source_ids": ["w1"]}], [web]) == ["PostgreSQL write upsert CONFLICT"]
    assert missing_sides("How does PostgreSQL enforce foreign keys?", [], []) == []


UPSERT_PAGES = {
    "sqlite-upsert.md": "# SQLite UPSERT\n\nAn UPSERT in SQLite is an INSERT statement followed by an ON CONFLICT "
    "clause that turns the insert into an update.",
    "python-sqlite3.md": "# Python sqlite3 cursor\n\nThe rowcount attribute of a Python sqlite3 cursor reports how "
    "many rows the last statement changed.",
    "postgresql-insert.md": "# PostgreSQL INSERT\n\nIn PostgreSQL an INSERT with ON CONFLICT DO UPDATE updates the "
    "existing row that conflicts with the proposed one.",
}


def _upsert_run(tmp_path, pages: dict[str, str], extract, **options):
    """A flat run of the upsert question with the embedded model's settings over `pages`, its extraction
    answered by `extract`; (runner, its final snapshot)."""
    scripted = ScriptedLLM(script={"extract_findings": extract})
    settings = {"sub_question_min_iterations": 1, "sub_question_max_iterations": 3, "findings_for_stop": 2}
    return library_run(tmp_path, pages, UPSERT_QUESTION, scripted, provider="local", **{**settings, **options})


def _pick_all_but_postgresql(body: dict) -> str:
    """An extraction answer that passes over every sentence about PostgreSQL (as a small model does)."""
    picks = [
        {"sentences": [k], "confidence": 0.9}
        for _, k, sentence in numbered_sentences(_tag(_user_text(body), "sources"))
        if "PostgreSQL" not in sentence
    ]
    return json.dumps({"findings": picks, "reasoning": "scripted"})


def test_a_flat_comparison_keeps_searching_for_the_side_no_finding_documents(tmp_path):
    # engine_picks off: the engine would pick PostgreSQL's sentence itself
    runner, snap = _upsert_run(tmp_path, UPSERT_PAGES, _pick_all_but_postgresql, engine_picks=False)
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    evaluations = [e.message for e in result.log if e.kind == "evaluate"]
    # SQLite's and Python's findings cover both clauses, but nothing from PostgreSQL's pages is in
    assert evaluations[0].startswith("continue: no finding yet on PostgreSQL"), evaluations
    searches = [e for e in result.log if e.kind == "queries"]
    # the first step searched "PostgreSQL write upsert CONFLICT" already: the next one searches that side
    # broader, not the whole question's words again
    assert len(searches) >= 2 and "'PostgreSQL write upsert CONFLICT'" in searches[0].message
    assert "no model call" in searches[1].reasoning and "PostgreSQL write upsert CONFLICT" in searches[1].reasoning
    assert searches[1].message.startswith("Queries: ['PostgreSQL ") and "SQLite" not in searches[1].message


def test_a_product_named_like_code_is_not_a_name_the_findings_must_repeat():
    # "PostgreSQL" is written like an identifier, but findings from its manual seldom repeat it: a
    # branch waiting for one spent its whole budget (11 iterations) in a flat run
    question = "Compare common table expressions in PostgreSQL and SQLite: how is a WITH query written?"
    assert unquoted_names(question, ["WITH provides a way to write auxiliary statements."]) == []
    assert unquoted_names("What is the default KeepAliveTimeout in Apache?", ["Apache keeps connections."]) == [
        "KeepAliveTimeout"
    ]
    # round OO, mn3: a finding from Node's child_process page did not say "Node.js", and the branch searched "Node.js"
    spawn = "What is the difference between child_process.spawn and child_process.exec in Node.js?"
    found = ["The child_process.spawn() and child_process.exec() methods follow the asynchronous pattern."]
    assert unquoted_names(spawn, found) == []
    assert unquoted_names(spawn, ["The child_process.exec() method spawns a shell."]) == ["child_process.spawn"]


SQLITE_CHANGES_PAGE = {
    "id": "c1",
    "title": "Count The Number Of Rows Modified",
    "url": "/usr/share/doc/sqlite3-doc/c3ref/changes.html",
    "snippet": "These functions return the number of rows modified, inserted or deleted by the most recently "
    "completed INSERT, UPDATE or DELETE statement.",
}


def test_a_clause_about_one_product_needs_a_finding_from_that_products_documentation():
    # the flat m14 run answered Python's clause from SQLite's C interface and never searched Python's manual
    question = "How does Python's sqlite3 module report how many rows a statement changed?"
    findings = [{"text": "These functions return the number of rows modified.", "source_ids": ["c1"]}]
    assert missing_subjects(question, findings, [SQLITE_CHANGES_PAGE]) == [
        "Python sqlite3 module report rows statement changed"
    ]
    assert missing_for(question, findings, [SQLITE_CHANGES_PAGE]) == [
        "Python sqlite3 module report rows statement changed"
    ]
    findings.append({"text": "rowcount: the number of modified rows.", "source_ids": ["p1"]})
    assert missing_subjects(question, findings, [SQLITE_CHANGES_PAGE, PYTHON_PAGE]) == []
    # an acronym or a clause comparing options is not such a subject
    assert missing_subjects("How does SQL define ON CONFLICT?", [], []) == []


def _all_but_python_at_first():
    """An extraction answer that passes over Python's sentences on its first call (as a small model
    does), then picks every sentence."""
    calls: list[dict] = []

    def answer(body: dict) -> str:
        calls.append(body)
        picks = [
            {"sentences": [k], "confidence": 0.9}
            for _, k, sentence in numbered_sentences(_tag(_user_text(body), "sources"))
            if len(calls) > 1 or "Python" not in sentence
        ]
        return json.dumps({"findings": picks, "reasoning": "scripted"})

    return answer


def test_a_clause_answered_only_from_another_products_pages_keeps_the_branch_searching(tmp_path):
    pages = {
        **UPSERT_PAGES,
        "sqlite-changes.md": "# Count the rows modified\n\nThe sqlite3_changes() interface reports how many rows "
        "the most recent statement changed.",
    }
    options = {"findings_per_part": 1, "engine_picks": False}
    runner, snap = _upsert_run(tmp_path, pages, _all_but_python_at_first(), **options)
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    evaluations = [e.message for e in result.log if e.kind == "evaluate"]
    # both clauses have findings, but the Python clause's rests on SQLite's C interface
    assert evaluations[0].startswith("continue: no finding yet on Python"), evaluations
    searches = [e.message for e in result.log if e.kind == "queries"]
    assert "'Python sqlite3 module report rows statement changed'" in searches[1]
