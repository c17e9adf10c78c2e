"""A hypothesis branch's notes read as a record (research_core/runs/hypothesis_notes.py)."""

from __future__ import annotations

import pytest

from research_core.runs.hypothesis_notes import HypothesisNotes, hypothesis_notes
from research_core.runs.rows import BranchRow

# As planning/hypotheses.py writes them, then the judgement adds verdict, evidence, confidence and pivot.
PROPOSED = {
    "search_strategy": "benchmarks",
    "initial_confidence": 6,
    "expected_evidence": "numbers",
    "validation_criteria": "a benchmark shows it",
    "verdict": None,
    "evidence": None,
    "pivot": None,
    "pivot_of": "sq_001",
}


def test_notes_read_what_the_engine_wrote_and_a_missing_note_is_none():
    notes = hypothesis_notes(PROPOSED)
    assert (notes.initial_confidence, notes.pivot_of, notes.verdict, notes.confidence) == (6, "sq_001", None, None)
    judged = hypothesis_notes(PROPOSED | {"verdict": "refuted", "confidence": 7, "pivot": "Cost decides."})
    assert (judged.verdict, judged.confidence, judged.pivot) == ("refuted", 7, "Cost decides.")
    assert hypothesis_notes(None) == HypothesisNotes() and hypothesis_notes({}).verdict is None


def test_unknown_notes_are_ignored_and_a_misspelled_read_fails():
    notes = hypothesis_notes({"verdict": "validated", "from_another_version": 1})
    assert notes.verdict == "validated"
    with pytest.raises(AttributeError):
        _ = notes.verdcit  # type: ignore[attr-defined]


def test_a_row_reads_its_notes_and_keeps_the_dict_it_exports():
    row = BranchRow(id="sq_002", question_text="Hiring decides.", priority=0.6, kind="hypothesis", hypothesis=PROPOSED)
    assert row.notes.pivot_of == "sq_001"
    assert row.model_dump()["hypothesis"] == PROPOSED  # the export keeps the engine's dict as it is
    assert BranchRow(id="sq_001", question_text="Q?", priority=0.5).notes == HypothesisNotes()
