"""One parser per gate: what arrives (a typed answer, its dump, or an older caller's string or dict)
becomes the gate's typed answer, or a `PlanError` with the message the gate shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from research_core.configuration import RunConfig
from research_core.gates.answers import (
    DrillApprove,
    DrillReject,
    GateAnswer,
    ReviewApprove,
    ReviewCancel,
    RevisionAccept,
    RevisionReject,
    StepAnswer,
)
from research_core.gates.payloads import (
    GatePayload,
    ReviewPayload,
    RevisionPayload,
    StepPayload,
)
from research_core.output.sanitize import strip_control_chars
from research_core.planning.plan import PlanError, as_priority, validate_plan

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


def action_object(answer: Any, actions: tuple[str, str], example: str) -> dict[str, Any]:
    """A two-way gate's answer as an object whose `action` is one of `actions`; PlanError otherwise.

    A typed answer is dumped first; a plain word ("Accept ") becomes {"action": "accept"}. The
    refusal names both words and the object form, `example`.
    """
    answer = plain_answer(answer)
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict) or answer.get("action") not in actions:
        raise PlanError(f"Answer '{actions[0]}', '{actions[1]}', or {example}.")
    return answer


def parse_revision_answer(answer: Any, changes: Mapping[str, Any]) -> RevisionAccept | RevisionReject:
    """Read a revision answer.

    Accepted: a typed answer or its dump; 'accept' or 'reject' (any case, spaces around);
    {'action': 'reject'}; {'action': 'accept'} (the whole proposal) or with 'changes' (an object):
    only the additions, drops and new priorities that were proposed are kept. Anything else
    raises PlanError.
    """
    answer = action_object(answer, ("accept", "reject"), "{'action': 'accept', 'changes': {...}}")
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
    answer = action_object(answer, ("approve", "reject"), "{'action': 'approve', 'children': [...]}")
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
