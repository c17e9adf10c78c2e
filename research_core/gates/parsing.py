"""One parser per gate, used where an answer enters: the words, JSON and table edits a page or the CLI
holds (or a typed answer) become the gate's checked typed answer, or a `GateAnswerError` (an
`ArborError` with a one-line message) that the page or the CLI shows where it was typed.

The node reads what the Runner sent with `answer_from_resume`, which validates a typed answer's dump
back into its model and hands only other shapes (words, older dicts, older checkpoints) to these parsers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from research_core.configuration import RunConfig
from research_core.gates.answers import (
    DrillApprove,
    DrillReject,
    GateAnswer,
    GateAnswerError,
    ReviewApprove,
    ReviewCancel,
    RevisionAccept,
    RevisionReject,
    StepAnswer,
    refusal,
)
from research_core.gates.payloads import (
    GatePayload,
    ReviewPayload,
    RevisionPayload,
    StepPayload,
)
from research_core.planning.plan import PlanError, validate_plan
from research_core.schemas import SubQuestion


def typed(model: type[BaseModel], data: Any) -> Any:
    """`data` validated into `model`; a refusal is the one-line `GateAnswerError` of the failed rule."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise refusal(exc) from None


def branch_statuses(branches: Iterable[SubQuestion]) -> dict[str, dict[str, Any]]:
    """What the step gate's parser reads of a run's branches (records or rows): `{id: {"id", "status"}}`."""
    return {b.id: {"id": b.id, "status": b.status} for b in branches}


def check_step_targets(step: StepAnswer, branches: Mapping[str, Mapping[str, Any]]) -> StepAnswer:
    """`step` when every branch it updates is a pending branch of the run; GateAnswerError otherwise."""
    for bid in step.updates:
        if bid not in branches:
            raise GateAnswerError(f"{bid} does not name a branch of this run.")
        if branches[bid].get("status") != "pending":
            raise GateAnswerError(f"{bid} is {branches[bid].get('status')}; only pending branches can be edited.")
    return step


def proposed_part(accepted: Mapping[str, Any], proposal: Mapping[str, Any]) -> dict[str, Any]:
    """The additions, drops and new priorities of `accepted` that `proposal` holds; nothing else."""
    return {
        "add": [a for a in accepted.get("add", []) if a in proposal.get("add", [])],
        "drop": [d for d in accepted.get("drop", []) if d in proposal.get("drop", [])],
        "reprioritize": {
            k: v for k, v in accepted.get("reprioritize", {}).items() if k in proposal.get("reprioritize", {})
        },
    }


# ---- parsers --------------------------------------------------------------------------------------


def _review_parts(answer: dict[str, Any]) -> dict[str, Any]:
    """A review answer in the typed shape ({'action', 'plan'}) as its action and the edited plan's rows."""
    plan = answer["plan"]
    action = answer.get("action", "approve")
    if plan is None:
        return {"action": action}
    if isinstance(plan, BaseModel):
        plan = plan.model_dump()
    if not isinstance(plan, dict):
        raise GateAnswerError("'plan' must be the edited plan object, or null to keep the proposed plan.")
    return {"action": action, "sub_questions": plan.get("sub_questions"), "strategy": plan.get("strategy")}


def parse_review_answer(
    answer: Any, question: str, strategy: str | None, config: RunConfig | None
) -> ReviewApprove | ReviewCancel:
    """Read a plan review answer where it is typed (page, CLI); the edited plan is validated here, once.

    Accepted: a typed answer or its JSON ({'action', 'plan'}); 'approve' or 'cancel' (any case,
    spaces around); {'action': 'cancel'}; {'action': 'approve'}; {'action': 'approve',
    'sub_questions': [...]} or a plan without an action (an edited plan approves it), validated
    against the question and the run's limits (`config`; None checks the plan alone), its strategy
    defaulting to the run's. Anything else raises GateAnswerError.
    """
    if isinstance(answer, ReviewCancel) or (isinstance(answer, ReviewApprove) and answer.plan is None):
        return answer
    if isinstance(answer, ReviewApprove):
        answer = {"action": "approve", "plan": answer.plan}
    if isinstance(answer, str):
        if answer.strip().lower() == "approve":
            return ReviewApprove()
        if answer.strip().lower() == "cancel":
            return ReviewCancel()
        raise GateAnswerError(f"Unknown answer {answer!r}: answer 'approve', 'cancel' or an edited plan.")
    if not isinstance(answer, dict):
        raise GateAnswerError("The answer must be 'approve', 'cancel' or an edited plan object.")
    if "plan" in answer and "sub_questions" not in answer:
        answer = _review_parts(answer)
    action = answer.get("action", "approve" if "sub_questions" in answer else None)
    if action == "cancel":
        return ReviewCancel()
    if action != "approve":
        raise GateAnswerError(f"Unknown action {action!r}: use 'approve' or 'cancel'.")
    if "sub_questions" not in answer:
        return ReviewApprove()
    try:
        edited = validate_plan({**answer, "strategy": answer.get("strategy") or strategy}, question, config=config)
    except PlanError as exc:
        raise refusal(exc) from None
    return ReviewApprove(plan=edited)


def _step_update(edit: Mapping[str, Any]) -> dict[str, Any]:
    """A step-gate edit ({id, question_text?, priority?, skip?}) as the update it stands for."""
    update = {k: edit[k] for k in ("question_text", "priority") if k in edit}
    if edit.get("skip"):
        update["status"] = "skipped"
    return update


def _step_updates(answer: dict[str, Any], branches: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A step answer's updates: its typed 'updates', or its 'edits' (from a table or a file) turned into updates."""
    edits, updates = answer.get("edits"), answer.get("updates")
    if edits and updates:
        raise GateAnswerError("Send 'edits' or 'updates', not both.")
    if updates is not None and not edits:
        return updates
    edits = edits or []
    if not isinstance(edits, list):
        raise GateAnswerError("'edits' must be a list of {id, question_text?, priority?, skip?}.")
    converted: dict[str, Any] = {}
    for edit in edits:
        if not isinstance(edit, dict) or edit.get("id") not in branches:
            raise GateAnswerError(f"Edit {edit!r} does not name a branch of this run.")
        converted[edit["id"]] = _step_update(edit)
    return converted


def parse_step_answer(answer: Any, branches: Mapping[str, Mapping[str, Any]]) -> StepAnswer:
    """Read a step-gate answer where it is typed (page, CLI).

    Accepted: a typed answer or its JSON ({'action', 'updates'}); 'continue' or 'stop' (any case,
    spaces around); {'action': 'continue' | 'stop', 'edits': [...]} with the action defaulting to
    continue. Each edit names a pending branch by `id` and may set `question_text` (control
    characters removed, stripped, not empty), `priority` (0 to 1) and `skip`; it becomes the update
    it stands for, once, and the typed answer checks every update. Anything else raises GateAnswerError.
    """
    if isinstance(answer, StepAnswer):
        return check_step_targets(answer, branches)
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict):
        raise GateAnswerError("Answer 'continue', 'stop', or an object with 'action' and 'edits'.")
    action = answer.get("action", "continue")
    if action not in ("continue", "stop"):
        raise GateAnswerError(f"Unknown action {action!r}: use 'continue' or 'stop'.")
    step = typed(StepAnswer, {"action": action, "updates": _step_updates(answer, branches)})
    return check_step_targets(step, branches)


def action_object(answer: Any, actions: tuple[str, str], example: str) -> dict[str, Any]:
    """A two-way gate's answer as an object whose `action` is one of `actions`; GateAnswerError otherwise.

    A plain word ("Accept ") becomes {"action": "accept"}. The refusal names both words and the
    object form, `example`.
    """
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict) or answer.get("action") not in actions:
        raise GateAnswerError(f"Answer '{actions[0]}', '{actions[1]}', or {example}.")
    return answer


def parse_revision_answer(answer: Any, changes: Mapping[str, Any]) -> RevisionAccept | RevisionReject:
    """Read a revision answer where it is typed (page, CLI).

    Accepted: a typed answer or its JSON; 'accept' or 'reject' (any case, spaces around);
    {'action': 'reject'}; {'action': 'accept'} (the whole proposal) or with 'changes' (an object):
    only the additions, drops and new priorities that were proposed are kept. Anything else
    raises GateAnswerError.
    """
    if isinstance(answer, RevisionReject):
        return answer
    if isinstance(answer, RevisionAccept):
        return RevisionAccept(changes=proposed_part(answer.changes, changes))
    answer = action_object(answer, ("accept", "reject"), "{'action': 'accept', 'changes': {...}}")
    if answer["action"] == "reject":
        return RevisionReject()
    accepted = answer.get("changes", changes)
    if not isinstance(accepted, dict):
        raise GateAnswerError("'changes' must be an object with add, drop and reprioritize.")
    return RevisionAccept(changes=proposed_part(accepted, changes))


def parse_drill_answer(answer: Any, proposals: list[Any]) -> DrillApprove | DrillReject:
    """Read a drill-down answer where it is typed (page, CLI).

    Accepted: a typed answer or its JSON; 'approve' or 'reject' (any case, spaces around);
    {'action': 'reject'}; {'action': 'approve'} (the proposals as they are) or with 'children': a
    non-empty list of {question_text (not blank), priority (0 to 1, default 0.5), …}, checked by the
    typed answer. Anything else raises GateAnswerError.
    """
    if isinstance(answer, DrillApprove | DrillReject):
        return answer
    answer = action_object(answer, ("approve", "reject"), "{'action': 'approve', 'children': [...]}")
    if answer["action"] == "reject":
        return DrillReject()
    return typed(DrillApprove, {"action": "approve", "children": answer.get("children", proposals)})


def parse_answer(
    payload: GatePayload,
    answer: Any,
    *,
    branches: Mapping[str, Mapping[str, Any]] | None = None,
    config: RunConfig | None = None,
) -> GateAnswer:
    """Read an answer to the gate `payload` shows, with that gate's parser; GateAnswerError when it is refused.

    What the pages and the CLI run on what the user typed, once, before they send. The step gate
    checks edits against `branches` (the run's, by id; the payload's own branches when not given);
    the review gate checks an edited plan against `config`'s limits.
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
