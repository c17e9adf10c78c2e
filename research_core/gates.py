"""The gates' protocol: what each `interrupt()` shows (payload) and what the user may answer.

A run pauses at four gates: plan review (`planning/review.py`), and the step, revision and
drill-down gates (`coordination/gates.py`). Each has one payload model, whose `model_dump()`
is the exact dict the graph hands to `interrupt()` (and that the UI, the CLI and stored
checkpoints read back with `read_payload`), and one typed answer, discriminated by `action` where
the answer has variants.

The pages and the CLI build typed answers; the Runner sends them as `model_dump(mode="json")`, so
checkpoints hold plain JSON. One parse function per gate reads what arrives, whether a typed
answer, its dump, or the plain strings and dicts older callers send (`resume --answer continue`, an
`--answer FILE.json`), and returns the typed answer, or raises `PlanError` with the message the gate
shows the user as its `error`. The pages and the CLI run the same parser before they send, so a
refused answer is said where it was typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from research_core.configuration import RunConfig
from research_core.output.sanitize import strip_control_chars
from research_core.planning.plan import PlanError, as_priority, validate_plan
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


# ---- typed answers on the wire ----------------------------------------------------------------------


def plain_answer(answer: Any) -> Any:
    """What is sent as a gate's answer: a typed answer as `model_dump(mode="json")`, anything else as it is."""
    return answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer


def _review_from_typed(answer: dict[str, Any]) -> dict[str, Any]:
    """A dumped `ReviewApprove` ({'action', 'plan'}) in the edited-plan form: its sub-questions and strategy."""
    plan = answer["plan"]
    action = answer.get("action", "approve")
    if plan is None:
        return {"action": action}
    if not isinstance(plan, dict):
        raise PlanError("'plan' must be the edited plan object, or null to keep the proposed plan.")
    return {"action": action, "sub_questions": plan.get("sub_questions"), "strategy": plan.get("strategy")}


_UPDATE_FIELDS = frozenset({"question_text", "priority", "status", "stop_reason"})


def _edits_from_updates(updates: Any) -> list[dict[str, Any]]:
    """The edits a dumped `StepAnswer`'s `updates` stand for, so they pass the same checks as edits.

    Only a new text, a priority and the status 'skipped' may be set; the stop reason is the gate's.
    """
    if not isinstance(updates, dict):
        raise PlanError("'updates' must be an object: {branch id: {question_text?, priority?, status?}}.")
    edits = []
    for bid, fields in updates.items():
        if not isinstance(fields, dict) or not _UPDATE_FIELDS.issuperset(fields):
            raise PlanError(f"{bid}: an update may set question_text, priority and status 'skipped', nothing else.")
        if fields.get("status", "skipped") != "skipped":
            raise PlanError(f"{bid}: an update may only set the status 'skipped', not {fields['status']!r}.")
        edit = {"id": bid, **{k: fields[k] for k in ("question_text", "priority") if k in fields}}
        if "status" in fields:
            edit["skip"] = True
        edits.append(edit)
    return edits


def _step_edits(answer: dict[str, Any]) -> list[Any]:
    """A step answer's edits: its 'edits' list, or the edits its 'updates' (a dumped StepAnswer) stand for."""
    edits, updates = answer.get("edits"), answer.get("updates")
    if edits and updates:
        raise PlanError("Send 'edits' or 'updates', not both.")
    if updates is not None and not edits:
        return _edits_from_updates(updates)
    edits = edits or []
    if not isinstance(edits, list):
        raise PlanError("'edits' must be a list of {id, question_text?, priority?, skip?}.")
    return edits


# ---- parsers --------------------------------------------------------------------------------------


def parse_review_answer(
    answer: Any, question: str, strategy: str | None, config: RunConfig | None
) -> ReviewApprove | ReviewCancel:
    """Read a plan review answer.

    Accepted: a typed answer or its dump; 'approve' or 'cancel' (any case, spaces around);
    {'action': 'cancel'}; {'action': 'approve'}; {'action': 'approve', 'sub_questions': [...]} or a
    plan without an action (an edited plan approves it), validated against the question and the
    run's limits (`config`; None checks the plan alone), its strategy defaulting to the run's.
    Anything else raises PlanError.
    """
    answer = plain_answer(answer)
    if isinstance(answer, str):
        if answer.strip().lower() == "approve":
            return ReviewApprove()
        if answer.strip().lower() == "cancel":
            return ReviewCancel()
        raise PlanError(f"Unknown answer {answer!r}: answer 'approve', 'cancel' or an edited plan.")
    if isinstance(answer, dict):
        if "plan" in answer and "sub_questions" not in answer:
            answer = _review_from_typed(answer)
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

    Accepted: a typed answer or its dump (its `updates` are checked like edits); 'continue' or
    'stop' (any case, spaces around); {'action': 'continue' | 'stop', 'edits': [...]} with the
    action defaulting to continue. Each edit names a pending branch by `id` and may set
    `question_text` (control characters removed, stripped, not empty), `priority` (0 to 1) and
    `skip`. Anything else raises PlanError.
    """
    answer = plain_answer(answer)
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict):
        raise PlanError("Answer 'continue', 'stop', or an object with 'action' and 'edits'.")
    action = answer.get("action", "continue")
    if action not in ("continue", "stop"):
        raise PlanError(f"Unknown action {action!r}: use 'continue' or 'stop'.")
    updates: dict[str, dict[str, Any]] = {}
    for edit in _step_edits(answer):
        if not isinstance(edit, dict) or edit.get("id") not in branches:
            raise PlanError(f"Edit {edit!r} does not name a branch of this run.")
        bid = edit["id"]
        if branches[bid].get("status") != "pending":
            raise PlanError(f"{bid} is {branches[bid].get('status')}; only pending branches can be edited.")
        updates[bid] = _step_change(edit, bid)
    return StepAnswer(action=action, updates=updates)


def parse_revision_answer(answer: Any, changes: Mapping[str, Any]) -> RevisionAccept | RevisionReject:
    """Read a revision answer.

    Accepted: a typed answer or its dump; 'accept' or 'reject' (any case, spaces around);
    {'action': 'reject'}; {'action': 'accept'} (the whole proposal) or with 'changes' (an object):
    only the additions, drops and new priorities that were proposed are kept. Anything else
    raises PlanError.
    """
    answer = plain_answer(answer)
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


def parse_drill_answer(answer: Any, proposals: list[Any]) -> DrillApprove | DrillReject:
    """Read a drill-down answer.

    Accepted: a typed answer or its dump; 'approve' or 'reject' (any case, spaces around);
    {'action': 'reject'}; {'action': 'approve'} (the proposals as they are) or with 'children': a
    non-empty list of {question_text (not blank), priority (0 to 1, default 0.5), …}. Anything else
    raises PlanError.
    """
    answer = plain_answer(answer)
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


def parse_answer(
    payload: GatePayload,
    answer: Any,
    *,
    branches: Mapping[str, Mapping[str, Any]] | None = None,
    config: RunConfig | None = None,
) -> GateAnswer:
    """Read an answer to the gate `payload` shows, with that gate's parser; PlanError when it is refused.

    What the pages and the CLI check before they send. The step gate checks edits against
    `branches` (the run's, by id; the payload's own branches when not given); the review gate
    checks an edited plan against `config`'s limits.
    """
    if isinstance(payload, ReviewPayload):
        return parse_review_answer(answer, payload.question, payload.strategy, config)
    if isinstance(payload, StepPayload):
        if branches is None:
            shown = [{**c, "status": "completed"} for c in payload.completed] + payload.pending
            branches = {b["id"]: b for b in shown if isinstance(b, dict) and "id" in b}
        return parse_step_answer(answer, branches)
    if isinstance(payload, RevisionPayload):
        return parse_revision_answer(answer, payload.changes)
    return parse_drill_answer(answer, payload.proposals)
