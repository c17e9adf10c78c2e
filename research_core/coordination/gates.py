"""The gates `coordinate` opens: the step gate, the plan-revision gate and the drill-down gate.

Each gate is `ask_until_valid` (`research_core.gates`): `interrupt(payload)` until the answer reads
as the gate's typed answer (`answer_from_resume`); a refused answer re-opens the gate with the
refusal shown. `coordinate` re-runs from its top on resume, so everything before a gate only reads the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from research_core.coordination.pass_state import CoordinationPass, coordinate_log
from research_core.gates import (
    DrillAnswer,
    DrillApprove,
    DrillDownPayload,
    RevisionAccept,
    RevisionAnswer,
    RevisionPayload,
    StepAnswer,
    StepPayload,
    answer_from_resume,
    ask_until_valid,
    branch_statuses,
    check_step_targets,
    parse_drill_answer,
    parse_revision_answer,
    parse_step_answer,
    proposed_part,
)
from research_core.planning.plan import insert_after_subtree, make_children
from research_core.planning.revision import apply_revision
from research_core.schemas import SubQuestion
from research_core.state import ResearchState

STOPPED_WARNING = "The run was stopped early by the user; the report uses what was gathered."


def read_step(answer: Any, branches: Mapping[str, SubQuestion]) -> StepAnswer:
    """The step gate's typed answer, applied as it arrives: only its targets are checked against the run."""
    rows = branch_statuses(branches.values())
    step = answer_from_resume("step", answer, lambda value: parse_step_answer(value, rows))
    return check_step_targets(step, rows)


def read_revision(answer: Any, proposal: Mapping[str, Any]) -> RevisionAnswer:
    """The revision gate's typed answer, kept to the part of `proposal` it accepts."""
    revision = answer_from_resume("revision", answer, lambda value: parse_revision_answer(value, proposal))
    if isinstance(revision, RevisionAccept):
        return RevisionAccept(changes=proposed_part(revision.changes, proposal))
    return revision


def read_drill(answer: Any, proposals: list[Any]) -> DrillAnswer:
    """The drill-down gate's typed answer (the proposals when an older caller approved them as they are)."""
    return answer_from_resume("drill_down", answer, lambda value: parse_drill_answer(value, proposals))


def shown_fields(branch: SubQuestion, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of `branch` a gate shows, in the order the gate shows them."""
    dump = branch.model_dump(include=set(names))
    return {name: dump[name] for name in names}


def step_payload(state: ResearchState, branches: dict[str, SubQuestion], done: list[str], error: str | None) -> dict:
    """What the step gate shows: the branches just finished and the ones still pending."""
    return StepPayload(
        question=state["question"],
        completed=[
            shown_fields(branches[b], ("id", "question_text", "synthesis", "confidence", "iteration_count"))
            for b in done
        ],
        pending=[
            shown_fields(branches[b], ("id", "question_text", "priority", "status", "parent_id"))
            for b in state["branch_order"]
            if b in branches and branches[b].status == "pending"
        ],
        error=error,
    ).model_dump()


def completed_not_shown(p: CoordinationPass) -> list[str]:
    """Completed branches, in plan order, that no step gate has shown yet."""
    return [b for b in p.order if p.branches[b].status == "completed" and b not in p.acknowledged]


def open_step_gate(state: ResearchState, p: CoordinationPass) -> None:
    """Step mode: after branches complete (not yet shown), pause; apply the user's edits, or stop."""
    if not p.config.step_mode or p.stop:
        return
    done = completed_not_shown(p)
    if not done:
        return
    step = ask_until_valid(
        lambda error: step_payload(state, p.branches, done, error),
        lambda answer: read_step(answer, p.branches),
    )
    p.acknowledged += done
    for bid, fields in step.updates.items():
        p.change(bid, fields)
        p.log.append(coordinate_log(f"Edited at step gate: {fields}", branch=bid))
    if step.action == "stop":
        p.stop = True
        p.warnings.append(STOPPED_WARNING)
        p.log.append(coordinate_log("The user stopped the run at a step gate."))


def open_revision_gate(state: ResearchState, p: CoordinationPass) -> None:
    """A pending plan revision waits for the user (rejected without asking once the run stops).

    A proposal the user answered uses up one of `max_revisions`, accepted or not, so someone who
    keeps saying no is not asked again after every branch.
    """
    pending_revision = state.get("revision_pending")
    if not pending_revision:
        return
    accepted = None
    if not p.stop:
        revision = ask_until_valid(
            lambda error: RevisionPayload(
                question=state["question"], changes=pending_revision, error=error
            ).model_dump(),
            lambda answer: read_revision(answer, pending_revision),
        )
        accepted = revision.changes if isinstance(revision, RevisionAccept) else None
    p.extra["revision_pending"] = None
    p.extra["revisions_done"] = int(state.get("revisions_done") or 0) + 1
    if accepted:
        rev_updates, order = apply_revision(accepted, p.branches, p.order, p.config)
        for bid, fields in rev_updates.items():
            p.change(bid, fields)
        p.set_order(order)
        p.log.append(coordinate_log(f"The user accepted the plan revision: {accepted}", kind="revision"))
    else:
        p.log.append(coordinate_log("The plan revision was rejected.", kind="revision"))


def drill_payload(question: str, branch: SubQuestion, proposals: list[dict], error: str | None) -> dict:
    """What the drill-down gate shows: the branch, why it goes deeper, and the proposed children."""
    return DrillDownPayload(
        question=question,
        branch=shown_fields(branch, ("id", "question_text", "depth_assessment", "priority")),
        reasoning=branch.depth_reasoning or "",
        proposals=proposals,
        error=error,
    ).model_dump()


def decide_drill_downs(state: ResearchState, p: CoordinationPass) -> None:
    """Proposed drill-downs: approved by the user in step mode, automatically otherwise, none once stopped.

    Children beyond `max_total_sub_questions` are dropped; with none left the drill-down is rejected.
    """
    for bid in list(p.order):
        b = p.branches[bid]
        if b.drill_status != "proposed":
            continue
        proposals = b.drill_proposal or []
        if p.stop:
            children = []
        elif p.config.step_mode:
            drill = ask_until_valid(
                lambda error, b=b, proposals=proposals: drill_payload(state["question"], b, proposals, error),
                lambda answer, proposals=proposals: read_drill(answer, proposals),
            )
            children = drill.children if isinstance(drill, DrillApprove) else []
        else:
            children = proposals
        add_drill_children(p, bid, children)


def children_with_room(children: list[dict], max_total: int, branch_count: int) -> list[dict]:
    """The first of `children` that fit under the ceiling of `max_total` branches in the run."""
    return children[: max(0, max_total - branch_count)]


def add_drill_children(p: CoordinationPass, bid: str, children: list[dict]) -> None:
    """Add the approved children under `bid` (as many as the sub-question ceiling allows), or reject it."""
    children = children_with_room(children, p.config.max_total_sub_questions, len(p.branches))
    if not children:
        p.change(bid, {"drill_status": "rejected"})
        p.log.append(coordinate_log("Drill-down not taken.", kind="drill_down", branch=bid))
        return
    made = make_children(
        p.branches[bid],
        children,
        set(p.branches),
        p.config.drill_down_iterations,
        p.config.sub_question_min_iterations,
        p.config.sub_question_max_iterations,
    )
    for child in made:
        p.change(child.id, child.model_dump())
    p.set_order(insert_after_subtree(p.order, p.branches, bid, [c.id for c in made]))
    p.change(bid, {"drill_status": "approved"})
    message = f"Drill-down: {', '.join(c.id for c in made)} added under {bid}."
    p.log.append(coordinate_log(message, kind="drill_down", branch=bid))
