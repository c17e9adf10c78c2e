"""What each gate's `interrupt()` shows: one payload model per gate, read back with `read_payload`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from research_core.gates.answers import DRILL_ANSWERS, GATE_KINDS, REVIEW_ANSWERS, REVISION_ANSWERS, STEP_ANSWERS

# ---- payloads -------------------------------------------------------------------------------------


class ReviewPayload(BaseModel):
    """The plan review gate: the plan, the iterations each branch is funded with and the cost range."""

    kind: Literal["review"] = "review"
    question: str
    strategy: str
    sub_questions: list[dict[str, Any]] = Field(description="Each sub-question's id, text, priority, rationale, …")
    estimated_iterations: dict[str, int] = Field(description="Funded research iterations per branch id.")
    estimated_cost_usd: list[float] = Field(description="[low, high] estimated cost of the run in USD.")
    # Runs paused before unfunded branches were reported have none.
    unfunded: list[str] = Field(default_factory=list, description="Branch ids the iteration ceiling cannot fund.")
    budget_note: str | None = None
    error: str | None = Field(default=None, description="Why the last answer was refused, if it was.")
    answers: str = REVIEW_ANSWERS


class StepPayload(BaseModel):
    """The step gate (step mode): the branches just completed and the ones still pending."""

    kind: Literal["step"] = "step"
    question: str
    completed: list[dict[str, Any]] = Field(description="id, question_text, synthesis, confidence, iteration_count.")
    pending: list[dict[str, Any]] = Field(description="id, question_text, priority, status, parent_id.")
    error: str | None = None
    answers: str = STEP_ANSWERS


class RevisionPayload(BaseModel):
    """The revision gate (step mode): the reviser's proposed change to the pending part of the plan."""

    kind: Literal["revision"] = "revision"
    question: str
    changes: dict[str, Any] = Field(description="The proposal: add, drop, reprioritize (and reasoning).")
    error: str | None = None
    answers: str = REVISION_ANSWERS


class DrillDownPayload(BaseModel):
    """The drill-down gate (step mode): a branch proposes narrower child questions."""

    kind: Literal["drill_down"] = "drill_down"
    question: str
    branch: dict[str, Any] = Field(description="id, question_text, depth_assessment, priority of the branch.")
    reasoning: str = ""
    proposals: list[Any] = Field(description="The proposed children: {question_text, priority, rationale}.")
    error: str | None = None
    answers: str = DRILL_ANSWERS


GatePayload = ReviewPayload | StepPayload | RevisionPayload | DrillDownPayload
_PAYLOAD = TypeAdapter(Annotated[GatePayload, Field(discriminator="kind")])


def read_payload(pending: Mapping[str, Any] | None) -> GatePayload | None:
    """The open gate's payload (a snapshot's `pending`) as its model; None when no gate of a known kind is open."""
    if not pending or pending.get("kind") not in GATE_KINDS:
        return None
    return _PAYLOAD.validate_python(dict(pending))
