"""What the user may answer at each gate: one typed answer per gate, discriminated by `action`.

The typed answers are the only shape an answer has inside Arbor. The edges (the pages, the CLI)
build them once, with the gate's parser (`research_core.gates.parsing`); the Runner hands one to the
graph as `plain_answer(answer)`; the gate reads it back with `answer_from_resume`. Those two are the
one place an answer is written to and read from the checkpoint's JSON. A refused answer is a
`GateAnswerError`: an `ArborError` whose `user_message` is one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from research_core.planning.plan import PlanError, as_priority
from research_core.schemas import Plan
from research_core.text.sanitize import strip_control_chars

GateKind = Literal["review", "step", "revision", "drill_down"]
GATE_KINDS: tuple[str, ...] = get_args(GateKind)


class GateAnswerError(PlanError):
    """A gate refused an answer; `user_message` is one line saying what to fix, and the gate stays open."""

    def __init__(self, user_message: str) -> None:
        super().__init__(" ".join(str(user_message).split()))


def refusal(exc: ValidationError | PlanError) -> GateAnswerError:
    """The one-line `GateAnswerError` for an answer a model or a rule refused (the rule's own message first)."""
    if isinstance(exc, GateAnswerError):
        return exc
    if isinstance(exc, PlanError):
        return GateAnswerError(exc.user_message)
    for error in exc.errors():
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, PlanError):
            return GateAnswerError(cause.user_message)
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return GateAnswerError(f"{where}: {first['msg']}" if where else first["msg"])


# ---- answers --------------------------------------------------------------------------------------

# The gate's own reason for a branch the user skipped.
SKIPPED_BY_USER = "skipped by the user"
UPDATE_FIELDS = frozenset({"question_text", "priority", "status", "stop_reason"})


def checked_update(bid: str, fields: Any) -> dict[str, Any]:
    """One pending branch's update as the step gate applies it: a stripped non-empty text, a 0-1 priority,
    the status 'skipped' (with the gate's stop reason), nothing else; PlanError otherwise."""
    if not isinstance(fields, dict) or not UPDATE_FIELDS.issuperset(fields):
        raise PlanError(f"{bid}: an update may set question_text, priority and status 'skipped', nothing else.")
    update: dict[str, Any] = {}
    if "question_text" in fields:
        text = fields["question_text"]
        if isinstance(text, str):
            text = strip_control_chars(text)
        if not isinstance(text, str) or not text.strip():
            raise PlanError(f"{bid}: the question text is empty.")
        update["question_text"] = text.strip()
    if "priority" in fields:
        update["priority"] = as_priority(fields["priority"], bid)
    if "status" in fields:
        if fields["status"] != "skipped":
            raise PlanError(f"{bid}: an update may only set the status 'skipped', not {fields['status']!r}.")
        update["status"] = "skipped"
        update["stop_reason"] = SKIPPED_BY_USER
    return update


def checked_child(child: Any, n: int) -> dict[str, Any]:
    """One drill-down child: a non-blank question text and a 0-1 priority (0.5 when none is given)."""
    if not isinstance(child, dict) or not str(child.get("question_text") or "").strip():
        raise PlanError(f"Child {n}: the question text is empty.")
    return {**child, "priority": as_priority(child.get("priority", 0.5), f"Child {n}")}


class ReviewApprove(BaseModel):
    """Approve the plan; `plan` is the user's edited plan, or None to keep the proposed one."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["approve"] = "approve"
    plan: Plan | None = Field(
        default=None,
        description="The edited plan (its sub-questions' id, question_text, priority, rationale and parent_id "
        "are read, and checked against the run's limits), or null to research the proposed plan.",
    )


class ReviewCancel(BaseModel):
    """Cancel the run at plan review."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["cancel"] = "cancel"


ReviewAnswer = Annotated[ReviewApprove | ReviewCancel, Field(discriminator="action")]


class StepAnswer(BaseModel):
    """Continue or stop after a branch; `updates` are the fields to change on pending branches, by id.

    Edits apply with either action (a user may skip a branch and stop in the same answer).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["continue", "stop"] = "continue"
    updates: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="By pending branch id, the fields to change: question_text (not blank), priority (0 to 1), "
        "and status 'skipped' to skip the branch (its stop_reason is set by the gate).",
    )

    @field_validator("updates", mode="before")
    @classmethod
    def _checked_updates(cls, updates: Any) -> dict[str, dict[str, Any]]:
        if not isinstance(updates, dict):
            raise PlanError("'updates' must be an object: {branch id: {question_text?, priority?, status?}}.")
        return {bid: checked_update(bid, fields) for bid, fields in updates.items()}


class RevisionAccept(BaseModel):
    """Accept the proposed revision, or the part of it in `changes` (add, drop, reprioritize)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["accept"] = "accept"
    changes: dict[str, Any] = Field(
        description="The part of the proposal to apply: add (proposed questions), drop (branch ids) and "
        "reprioritize ({branch id: priority}); anything not proposed is left out."
    )


class RevisionReject(BaseModel):
    """Reject the proposed revision."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["reject"] = "reject"


RevisionAnswer = Annotated[RevisionAccept | RevisionReject, Field(discriminator="action")]


class DrillApprove(BaseModel):
    """Approve the drill-down with these children (the proposals, or the user's edit of them)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["approve"] = "approve"
    children: list[dict[str, Any]] = Field(
        description="The child questions to research: a non-empty list of {question_text (not blank), "
        "priority (0 to 1, default 0.5), rationale?}."
    )

    @field_validator("children", mode="before")
    @classmethod
    def _checked_children(cls, children: Any) -> list[dict[str, Any]]:
        if not isinstance(children, list) or not children:
            raise PlanError("'children' must be a non-empty list of {question_text, priority}.")
        return [checked_child(child, n) for n, child in enumerate(children, start=1)]


class DrillReject(BaseModel):
    """Reject the drill-down: no children are created."""

    model_config = ConfigDict(extra="forbid")

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
    (ReviewApprove, ReviewCancel),
    "{'action': 'approve', 'plan': {'sub_questions': [{id?, question_text, priority, rationale?, parent_id?}]}} "
    "(plan null keeps the proposed plan)",
)
STEP_ANSWERS = answers_help(
    (StepAnswer,),
    "{'action': 'continue' | 'stop', 'updates': {branch id: {question_text?, priority?, status?: 'skipped'}}}",
)
REVISION_ANSWERS = answers_help(
    (RevisionAccept, RevisionReject),
    "{'action': 'accept', 'changes': {add: [proposed questions], drop: [branch ids], reprioritize: {id: priority}}}",
)
DRILL_ANSWERS = answers_help(
    (DrillApprove, DrillReject), "{'action': 'approve', 'children': [{question_text, priority?, rationale?}]}"
)


# ---- the one way an answer crosses the checkpoint ---------------------------------------------------

_ADAPTERS = {kind: TypeAdapter(answer_type) for kind, answer_type in ANSWER_TYPES.items()}


def plain_answer(answer: Any) -> Any:
    """What the Runner sends as `Command(resume=...)`: a typed answer as `model_dump(mode="json")`.

    Anything else (an older caller's word or dict) passes as it is, for the gate's parser to read.
    """
    return answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer


def answer_from_resume(kind: str, value: Any, legacy: Callable[[Any], Any]) -> Any:
    """The typed answer a gate of `kind` received: the inverse of `plain_answer`, read once at the node.

    A typed answer's dump (no field outside its model) is validated back into the model, not parsed
    again. Anything else, such as a word, an older dict shape or an answer stored in a checkpoint
    before the typed answers, is read by `legacy` (the gate's parser), which refuses it with a
    `GateAnswerError` when it cannot be read.
    """
    if isinstance(value, BaseModel):
        value = plain_answer(value)
    if isinstance(value, dict):
        try:
            return _ADAPTERS[kind].validate_python(value)
        except ValidationError:
            pass
    try:
        return legacy(value)
    except PlanError as exc:
        raise refusal(exc) from None
