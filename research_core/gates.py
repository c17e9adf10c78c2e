"""The gates' protocol: what each `interrupt()` shows (payload) and what the user may answer.

A run pauses at four gates: plan review (`planning/review.py`), and the step, revision and
drill-down gates (`coordination/gates.py`). Each has one payload model, whose `model_dump()`
is the exact dict the graph hands to `interrupt()` (and that the UI, the CLI and stored
checkpoints read), and one typed answer, discriminated by `action` where the answer has variants.

Callers (the UI, the CLI's `--answer` file, `resume --answer continue`) send plain strings or
dicts; one parse function per gate turns whatever they send into the typed answer, or raises
`PlanError` with the message the gate shows the user as its `error`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from research_core.configuration import RunConfig
from research_core.output.sanitize import strip_control_chars
from research_core.planning.plan import PlanError, as_priority, validate_plan
from research_core.schemas import Plan

REVIEW_ANSWERS = "approve | {'action': 'approve', 'sub_questions': [...edited plan...]} | {'action': 'cancel'}"
STEP_ANSWERS = "continue | stop | {'action': 'continue', 'edits': [{'id', 'question_text', 'priority', 'skip'}]}"
REVISION_ANSWERS = "accept | reject | {'action': 'accept', 'changes': {...}}"
DRILL_ANSWERS = "approve | reject | {'action': 'approve', 'children': [{question_text, priority}]}"


# ---- payloads -------------------------------------------------------------------------------------


class ReviewPayload(BaseModel):
    """The plan review gate: the plan, the iterations each branch is funded with and the cost range."""

    kind: Literal["review"] = "review"
    question: str
    strategy: str
    sub_questions: list[dict[str, Any]] = Field(description="Each sub-question's id, text, priority, rationale, …")
    estimated_iterations: dict[str, int] = Field(description="Funded research iterations per branch id.")
    estimated_cost_usd: list[float] = Field(description="[low, high] estimated cost of the run in USD.")
    unfunded: list[str] = Field(description="Branch ids the iteration ceiling cannot fund.")
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


# ---- answers --------------------------------------------------------------------------------------


class ReviewApprove(BaseModel):
    """Approve the plan; `plan` is the user's edited plan, or None to keep the proposed one."""

    action: Literal["approve"] = "approve"
    plan: Plan | None = None


class ReviewCancel(BaseModel):
    """Cancel the run at plan review."""

    action: Literal["cancel"] = "cancel"


class StepAnswer(BaseModel):
    """Continue or stop after a branch; `updates` are the fields to change on pending branches, by id.

    Edits apply with either action (a user may skip a branch and stop in the same answer).
    """

    model_config = ConfigDict(frozen=True)

    action: Literal["continue", "stop"] = "continue"
    updates: dict[str, dict[str, Any]] = Field(default_factory=dict)


class RevisionAccept(BaseModel):
    """Accept the proposed revision, or the part of it in `changes` (add, drop, reprioritize)."""

    action: Literal["accept"] = "accept"
    changes: dict[str, Any]


class RevisionReject(BaseModel):
    """Reject the proposed revision."""

    action: Literal["reject"] = "reject"


class DrillApprove(BaseModel):
    """Approve the drill-down with these children (the proposals, or the user's edit of them)."""

    action: Literal["approve"] = "approve"
    children: list[dict[str, Any]]


class DrillReject(BaseModel):
    """Reject the drill-down: no children are created."""

    action: Literal["reject"] = "reject"


# ---- parsers --------------------------------------------------------------------------------------


def parse_review_answer(
    answer: Any, question: str, strategy: str | None, config: RunConfig
) -> ReviewApprove | ReviewCancel:
    """Read a plan review answer.

    Accepted: 'approve' or 'cancel' (any case, spaces around); {'action': 'cancel'};
    {'action': 'approve'}; {'action': 'approve', 'sub_questions': [...]} or a plan without an
    action (an edited plan approves it), validated against the question and the run's limits, its
    strategy defaulting to the run's. Anything else raises PlanError.
    """
    if isinstance(answer, str):
        if answer.strip().lower() == "approve":
            return ReviewApprove()
        if answer.strip().lower() == "cancel":
            return ReviewCancel()
        raise PlanError(f"Unknown answer {answer!r}: answer 'approve', 'cancel' or an edited plan.")
    if isinstance(answer, dict):
        action = answer.get("action", "approve" if "sub_questions" in answer else None)
        if action == "cancel":
            return ReviewCancel()
        if action == "approve":
            if "sub_questions" in answer:
                edited = validate_plan(
                    {**answer, "strategy": answer.get("strategy") or strategy}, question, config=config
                )
                return ReviewApprove(plan=edited)
            return ReviewApprove()
        raise PlanError(f"Unknown action {action!r}: use 'approve' or 'cancel'.")
    raise PlanError("The answer must be 'approve', 'cancel' or an edited plan object.")


def _step_change(edit: Mapping[str, Any], bid: str) -> dict[str, Any]:
    """The fields one step-gate edit changes: a stripped non-empty text, a 0–1 priority, a skip."""
    change: dict[str, Any] = {}
    if "question_text" in edit:
        text = edit["question_text"]
        if isinstance(text, str):
            text = strip_control_chars(text)
        if not isinstance(text, str) or not text.strip():
            raise PlanError(f"{bid}: the question text is empty.")
        change["question_text"] = text.strip()
    if "priority" in edit:
        change["priority"] = as_priority(edit["priority"], bid)
    if edit.get("skip"):
        change["status"] = "skipped"
        change["stop_reason"] = "skipped by the user"
    return change


def parse_step_answer(answer: Any, branches: Mapping[str, Mapping[str, Any]]) -> StepAnswer:
    """Read a step-gate answer.

    Accepted: 'continue' or 'stop' (any case, spaces around); {'action': 'continue' | 'stop',
    'edits': [...]} with the action defaulting to continue. Each edit names a pending branch by
    `id` and may set `question_text` (control characters removed, stripped, not empty),
    `priority` (0 to 1) and `skip`. Anything else raises PlanError.
    """
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict):
        raise PlanError("Answer 'continue', 'stop', or an object with 'action' and 'edits'.")
    action = answer.get("action", "continue")
    if action not in ("continue", "stop"):
        raise PlanError(f"Unknown action {action!r}: use 'continue' or 'stop'.")
    edits = answer.get("edits") or []
    if not isinstance(edits, list):
        raise PlanError("'edits' must be a list of {id, question_text?, priority?, skip?}.")
    updates: dict[str, dict[str, Any]] = {}
    for edit in edits:
        if not isinstance(edit, dict) or edit.get("id") not in branches:
            raise PlanError(f"Edit {edit!r} does not name a branch of this run.")
        bid = edit["id"]
        if branches[bid].get("status") != "pending":
            raise PlanError(f"{bid} is {branches[bid].get('status')}; only pending branches can be edited.")
        updates[bid] = _step_change(edit, bid)
    return StepAnswer(action=action, updates=updates)


def parse_revision_answer(answer: Any, changes: Mapping[str, Any]) -> RevisionAccept | RevisionReject:
    """Read a revision answer.

    Accepted: 'accept' or 'reject' (any case, spaces around); {'action': 'reject'};
    {'action': 'accept'} (the whole proposal) or with 'changes' (an object): only the additions,
    drops and new priorities that were proposed are kept. Anything else raises PlanError.
    """
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict) or answer.get("action") not in ("accept", "reject"):
        raise PlanError("Answer 'accept', 'reject', or {'action': 'accept', 'changes': {...}}.")
    if answer["action"] == "reject":
        return RevisionReject()
    accepted = answer.get("changes", changes)
    if not isinstance(accepted, dict):
        raise PlanError("'changes' must be an object with add, drop and reprioritize.")
    return RevisionAccept(
        changes={
            "add": [a for a in accepted.get("add", []) if a in changes.get("add", [])],
            "drop": [d for d in accepted.get("drop", []) if d in changes.get("drop", [])],
            "reprioritize": {
                k: v for k, v in accepted.get("reprioritize", {}).items() if k in changes.get("reprioritize", {})
            },
        }
    )


def parse_drill_answer(answer: Any, proposals: list[dict[str, Any]]) -> DrillApprove | DrillReject:
    """Read a drill-down answer.

    Accepted: 'approve' or 'reject' (any case, spaces around); {'action': 'reject'};
    {'action': 'approve'} (the proposals as they are) or with 'children': a non-empty list of
    {question_text (not blank), priority (0 to 1, default 0.5), …}. Anything else raises PlanError.
    """
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict) or answer.get("action") not in ("approve", "reject"):
        raise PlanError("Answer 'approve', 'reject', or {'action': 'approve', 'children': [...]}.")
    if answer["action"] == "reject":
        return DrillReject()
    children = answer.get("children", proposals)
    if not isinstance(children, list) or not children:
        raise PlanError("'children' must be a non-empty list of {question_text, priority}.")
    out = []
    for n, child in enumerate(children, start=1):
        if not isinstance(child, dict) or not str(child.get("question_text") or "").strip():
            raise PlanError(f"Child {n}: the question text is empty.")
        out.append({**child, "priority": as_priority(child.get("priority", 0.5), f"Child {n}")})
    return DrillApprove(children=out)
