"""Branch answers: grounded, and every checked finding in them once."""

from __future__ import annotations

from research_core.synthesis.synthesize import findings_as_markdown, ground_branch_answer

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
