"""A hypothesis branch's notes as the pages and the CLI read them: `HypothesisNotes`.

The engine keeps a hypothesis's notes in its branch's `hypothesis` dict (planning/hypotheses.py
writes what it expects, the judgement adds the verdict, the evidence and a pivot), and the stored
result and the JSON export keep that dict as it is. Readers take it through `HypothesisNotes`, so a
misspelled note is an AttributeError instead of a silent None.

The rules: every note may be missing (a hypothesis not yet judged, or one an older Arbor wrote) and
reads as None; keys it does not know are ignored; the notes are read, never written back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict


class HypothesisNotes(BaseModel):
    """What a hypothesis expected, how it was judged, and the pivot it suggests or came from."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    search_strategy: str | None = None
    expected_evidence: str | None = None
    validation_criteria: str | None = None
    initial_confidence: float | None = None  # the prior, 1-10
    verdict: str | None = None  # validated, refuted or inconclusive once judged
    evidence: str | None = None
    confidence: float | None = None  # after judging, 1-10
    pivot: str | None = None  # a revised hypothesis the judgement suggests
    pivot_of: str | None = None  # the id of the hypothesis this one is the pivot of


def hypothesis_notes(hypothesis: Mapping[str, Any] | None) -> HypothesisNotes:
    """The notes of a branch's `hypothesis` dict; empty notes for a branch without one."""
    return HypothesisNotes.model_validate(dict(hypothesis)) if hypothesis else HypothesisNotes()
