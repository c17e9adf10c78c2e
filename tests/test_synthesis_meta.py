"""The report's overview (`synthesis/meta.py`): when none is written, and how the model's text is cleaned."""

from __future__ import annotations

from typing import Any

from research_core.schemas import SubQuestion
from research_core.synthesis.meta import clean_overview, report_without_overview

ANSWER = (SubQuestion(id="sq_001", question_text="What is WAL?", priority=0.5), "WAL lets readers go on [[src:a1]].")


def state(mode: str) -> Any:
    return {"mode": mode, "question": "Q"}


def test_a_flat_run_reports_its_one_branch_answer_with_numbered_citations():
    update = report_without_overview(state("flat"), [ANSWER], {"a1": 1})
    assert update == {"final_answer": "WAL lets readers go on [1].", "status": "completed"}
    assert report_without_overview(state("flat"), [], {})["final_answer"] == "No answer could be produced."


def test_without_evidence_in_any_branch_no_answer_is_given():
    update = report_without_overview(state("hierarchical"), [ANSWER], {})
    assert update is not None and update["status"] == "completed"
    assert update["final_answer"].endswith("Parts researched without evidence:\n- What is WAL?")
    assert update["log"][0]["kind"] == "evidence"


def test_without_any_branch_answer_there_is_nothing_to_synthesize():
    update = report_without_overview(state("hierarchical"), [], {})
    assert update is not None and update["status"] == "completed_with_fallback"


def test_an_overview_is_written_when_branches_have_evidence():
    assert report_without_overview(state("hierarchical"), [ANSWER], {"a1": 1}) is None
    assert report_without_overview(state("hypothesis"), [ANSWER], {"a1": 1}) is None


def test_the_overview_loses_escape_sequences_and_citations_of_unknown_sources():
    text, log = clean_overview("  \x1b[31mWAL helps [1][7].\x1b[0m  ", source_count=1)
    assert "\x1b" not in text and "[7]" not in text and "[1]" in text
    assert log[0]["message"] == "Removed 1 citation(s) to unknown sources."
    assert clean_overview("Fine [1].", source_count=1) == ("Fine [1].", [])


def test_a_part_comparing_two_systems_from_one_sides_pages_says_so_in_the_limitations():
    from research_core.synthesis.meta import assembled_report

    sources = [
        {"id": "a1", "title": "12.3. Controlling Text Search", "url": "/usr/share/doc/postgresql-doc-15/html/a.html"},
        {"id": "b1", "title": "SQLite FTS5 Extension", "url": "/usr/share/doc/sqlite3/fts5.html"},
    ]
    index = SubQuestion(
        id="sq_001",
        question_text="How are documents indexed in PostgreSQL and SQLite?",
        priority=0.6,
        status="completed",
        synthesis="PostgreSQL indexes tsvector values [[src:a1]]. SQLite builds an FTS5 table [[src:b1]].",
    )
    rank = SubQuestion(
        id="sq_002",
        question_text="How do PostgreSQL and SQLite rank full-text search results?",
        priority=0.5,
        status="completed",
        synthesis="PostgreSQL provides two predefined ranking functions [[src:a1]].",
    )
    run = {
        "question": "Compare full-text search in PostgreSQL and SQLite.",
        "sources": sources,
        "branches": {"sq_001": index, "sq_002": rank},
        "branch_order": ["sq_001", "sq_002"],
    }
    report = assembled_report(run, {"a1": 1, "b1": 2})
    limits = report.split("## Limitations", 1)[1]
    assert "SQLite's side of part 2 (How do PostgreSQL and SQLite rank full-text search results?)" in limits
    # the indexing part cites a page about each system, and the whole report does too
    assert "part 1" not in limits and "no source about" not in limits
