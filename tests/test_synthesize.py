"""Branch answers: numbered for the prompt, grounded, and every checked finding in them once."""

from __future__ import annotations

from research_core.schemas import SubQuestion
from research_core.synthesis.synthesize import (
    branch_confidence,
    findings_as_markdown,
    findings_for_prompt,
    ground_branch_answer,
    local_numbering,
    no_evidence_answer,
)

SOURCES = [
    {"id": "a1", "title": "SQLite locking", "snippet": "SQLite allows one writer at a time and many readers."},
    {"id": "b2", "title": "WAL", "snippet": "In WAL mode readers do not block the writer."},
    {"id": "c3", "title": "PostgreSQL MVCC", "snippet": "PostgreSQL uses MVCC so readers never block writers."},
]
FINDINGS = [
    {"text": "SQLite allows one writer at a time.", "source_ids": ["a1"], "confidence": 0.9},
    {"text": "In WAL mode readers do not block the writer.", "source_ids": ["b2"], "confidence": 0.8},
    {"text": "PostgreSQL uses MVCC so readers never block writers.", "source_ids": ["c3"], "confidence": 0.8},
]
LOCAL = {"a1": 1, "b2": 2, "c3": 3}
REVERSE = {n: sid for sid, n in LOCAL.items()}


def _answer(text: str) -> tuple[str, dict]:
    out, fields, _ = ground_branch_answer(text, FINDINGS, SOURCES, REVERSE, findings_as_markdown(FINDINGS, LOCAL))
    return out, fields


def test_findings_the_answer_leaves_out_are_listed_once():
    text, fields = _answer("SQLite allows only one writer at a time [[src:a1]].")
    assert "Also found:" in text
    assert text.count("readers do not block the writer") == 1
    assert text.count("PostgreSQL uses MVCC") == 1
    assert text.count("one writer at a time") == 1  # stated by the answer, not listed again
    assert fields["statements_checked"] == fields["statements_supported"] == 3


def test_an_answer_that_states_every_finding_gets_no_list():
    text, _ = _answer(
        "SQLite allows one writer at a time [[src:a1]]. In WAL mode readers do not block the writer [[src:b2]]. "
        "PostgreSQL uses MVCC so readers never block writers [[src:c3]]."
    )
    assert "Also found" not in text


def child(**fields) -> SubQuestion:
    return SubQuestion(id="sq_001.1", question_text="A narrower question?", priority=0.5, status="completed", **fields)


def test_the_prompt_numbers_the_findings_sources_first_then_the_childrens_each_once():
    children = [child(synthesis="A child [[src:c3]] and [[src:a1]] and [[src:d4]].")]
    # d4 was not handed over with the task, so it gets no number
    assert local_numbering(FINDINGS[:2], children, SOURCES) == {"a1": 1, "b2": 2, "c3": 3}
    assert local_numbering([], [], SOURCES) == {}


def test_the_prompt_shows_each_findings_confidence():
    shown = findings_for_prompt(FINDINGS[:2], findings_as_markdown(FINDINGS[:2], LOCAL))
    assert shown.splitlines() == [
        "- (confidence 0.9) SQLite allows one writer at a time. [1]",
        "- (confidence 0.8) In WAL mode readers do not block the writer. [2]",
    ]


def test_a_branch_confidence_is_the_mean_of_its_findings_and_answered_children():
    assert branch_confidence(FINDINGS[:2], [child(confidence=0.4), child(confidence=None)]) == 0.7
    assert branch_confidence([], [child(confidence=None)]) is None


def test_a_branch_without_evidence_stays_unanswered_and_says_why():
    branch = SubQuestion(id="sq_001", question_text="Why?", priority=0.5, stop_reason="cost cap reached")
    update = no_evidence_answer(branch).update("sq_001")
    fields = update["branches"]["sq_001"]
    assert fields["synthesis"].startswith("No evidence found.") and "(cost cap reached)" in fields["synthesis"]
    assert fields["status"] == "completed" and fields["research_done"] and fields["confidence"] is None
    assert update["log"][0]["message"] == "No findings to synthesize." and update["costs"] == []
