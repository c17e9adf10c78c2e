"""What the user may answer at each gate: one typed answer per gate, discriminated by `action`."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from research_core.schemas import Plan

GateKind = Literal["review", "step", "revision", "drill_down"]
GATE_KINDS: tuple[str, ...] = get_args(GateKind)


# ---- answers --------------------------------------------------------------------------------------


class ReviewApprove(BaseModel):
    """Approve the plan; `plan` is the user's edited plan, or None to keep the proposed one."""

    action: Literal["approve"] = "approve"
    plan: Plan | None = Field(
        default=None,
        description="The edited plan (its sub-questions' id, question_text, priority, rationale and parent_id "
        "are read, and checked against the run's limits), or null to research the proposed plan.",
    )


class ReviewCancel(BaseModel):
    """Cancel the run at plan review."""

    action: Literal["cancel"] = "cancel"


ReviewAnswer = Annotated[ReviewApprove | ReviewCancel, Field(discriminator="action")]


class StepAnswer(BaseModel):
    """Continue or stop after a branch; `updates` are the fields to change on pending branches, by id.

    Edits apply with either action (a user may skip a branch and stop in the same answer).
    """

    model_config = ConfigDict(frozen=True)

    action: Literal["continue", "stop"] = "continue"
    updates: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="By pending branch id, the fields to change: question_text (not blank), priority (0 to 1), "
        "and status 'skipped' to skip the branch (its stop_reason is set by the gate).",
    )


class RevisionAccept(BaseModel):
    """Accept the proposed revision, or the part of it in `changes` (add, drop, reprioritize)."""

    action: Literal["accept"] = "accept"
    changes: dict[str, Any] = Field(
        description="The part of the proposal to apply: add (proposed questions), drop (branch ids) and "
        "reprioritize ({branch id: priority}); anything not proposed is left out."
    )


class RevisionReject(BaseModel):
    """Reject the proposed revision."""

    action: Literal["reject"] = "reject"


RevisionAnswer = Annotated[RevisionAccept | RevisionReject, Field(discriminator="action")]


class DrillApprove(BaseModel):
    """Approve the drill-down with these children (the proposals, or the user's edit of them)."""

    action: Literal["approve"] = "approve"
    children: list[dict[str, Any]] = Field(
        description="The child questions to research: a non-empty list of {question_text (not blank), "
        "priority (0 to 1, default 0.5), rationale?}."
    )


class DrillReject(BaseModel):
    """Reject the drill-down: no children are created."""

    action: Literal["reject"] = "reject"


DrillAnswer = Annotated[DrillApprove | DrillReject, Field(discriminator="action")]

GateAnswer = ReviewApprove | ReviewCancel | StepAnswer | RevisionAccept | RevisionReject | DrillApprove | DrillReject
# The typed answer of each gate, by the `kind` of its payload.
ANSWER_TYPES: dict[str, Any] = {
    "review": ReviewAnswer,
    "step": StepAnswer,
    "revision": RevisionAnswer,
    "drill_down": DrillAnswer,
}


def answer_schema(kind: str) -> dict[str, Any]:
    """The JSON schema of the typed answer of the gate `kind` (review, step, revision, drill_down)."""
    return TypeAdapter(ANSWER_TYPES[kind]).json_schema()


def answers_help(models: tuple[type[BaseModel], ...], example: str) -> str:
    """A payload's `answers` line: each answer model's action as a word, then `example` (the object form)."""
    words = [word for model in models for word in get_args(model.model_fields["action"].annotation)]
    return " | ".join([*words, example])


REVIEW_ANSWERS = answers_help(
    (ReviewApprove, ReviewCancel), "{'action': 'approve', 'sub_questions': [...edited plan...]}"
)
STEP_ANSWERS = answers_help(
    (StepAnswer,), "{'action': 'continue', 'edits': [{'id', 'question_text', 'priority', 'skip'}]}"
)
REVISION_ANSWERS = answers_help((RevisionAccept, RevisionReject), "{'action': 'accept', 'changes': {...}}")
DRILL_ANSWERS = answers_help(
    (DrillApprove, DrillReject), "{'action': 'approve', 'children': [{question_text, priority}]}"
)
