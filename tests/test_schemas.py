"""The shared records keep the shape stored runs and checkpoints already have."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research_core.schemas import Finding


def test_a_finding_dumps_exactly_the_fields_stored_runs_carry():
    finding = Finding(id="f1", sub_question_id="sq_001", text="A fact.", confidence=0.7, source_ids=["s1"], iteration=2)
    assert finding.model_dump() == {
        "id": "f1",
        "sub_question_id": "sq_001",
        "text": "A fact.",
        "confidence": 0.7,
        "source_ids": ["s1"],
        "iteration": 2,
        "quote": "",
        "location": "",
    }
    fields = ["id", "sub_question_id", "text", "confidence", "source_ids", "iteration", "quote", "location"]
    assert list(finding.model_dump()) == fields


def test_a_finding_confidence_stays_within_0_and_1():
    with pytest.raises(ValidationError):
        Finding(id="f1", sub_question_id="sq_001", text="A fact.", confidence=1.5)
