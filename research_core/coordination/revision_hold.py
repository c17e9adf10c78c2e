"""Adaptive plan: after branches complete, the reviser sees the plan before more research starts."""

from __future__ import annotations

from research_core.coordination.pass_state import CoordinationPass
from research_core.coordination.tasks import revise_task
from research_core.research.part_coverage import uncovered_parts
from research_core.schemas import SubQuestion
from research_core.state import ResearchState, branches_of
from research_core.task_records import RevisionTask


def revision_due(state: ResearchState, p: CoordinationPass, newly_completed: list[str], exhausted: bool) -> bool:
    """Whether the reviser is asked now.

    After branches complete, in hierarchical mode with the adaptive plan on, not stopped, under
    the cost cap and `max_revisions`, with a branch pending or room for more. In auto mode a
    reviser may only add branches once none is pending, so then it is asked only while a part of
    the question has no branch of its own (`parts_without_branch`): a call that can change
    nothing costs a small local model half a minute. Without `revise_while_pending` (the embedded
    model's setting) the same holds while branches are pending: every approved branch runs anyway,
    and re-ordering them is all such a reviser could add, at about 20 seconds a call.
    """
    # pending before this pass: the branches the scheduler is about to start count as pending
    before = branches_of(state)
    pending = any(v.status == "pending" for v in [*p.branches.values(), *before.values()])
    if (
        (not pending or not p.config.revise_while_pending)
        and not p.config.step_mode
        and not parts_without_branch(state.get("question", ""), p.branches)
    ):
        return False
    return bool(
        newly_completed
        and p.config.adaptive_plan
        and state.get("mode") == "hierarchical"
        and not p.stop
        and not exhausted
        and p.revisions_done(state) < p.config.max_revisions
        and (
            any(v.status == "pending" for v in p.branches.values())
            or len(p.branches) < p.config.max_total_sub_questions
        )
    )


def parts_without_branch(question: str, branches: dict[str, SubQuestion]) -> list[str]:
    """The clauses of the question that no branch asks about (each branch counts for one clause)."""
    live = [b.question_text for b in branches.values() if b.status not in ("skipped", "failed")]
    return uncovered_parts(question, live)


def hold_for_revision(
    state: ResearchState, p: CoordinationPass, research_ids: list[str], exhausted: bool
) -> tuple[list[str], RevisionTask | None]:
    """Adaptive plan: after branches complete, ask the reviser before starting more research.

    When `revision_due`, branches already being researched go on beside the revision (the
    reviser may only change pending ones); branches the scheduler would start now wait, so the
    reviser can still drop or re-prioritise them. Returns the research to start and the revise task.
    """
    revised_after = list(state.get("revised_after") or [])
    newly = [b for b in p.order if p.branches[b].status == "completed" and b not in revised_after]
    task = None
    before_pass = branches_of(state)
    if revision_due(state, p, newly, exhausted):
        held = [bid for bid in research_ids if bid in before_pass and before_pass[bid].status == "pending"]
        for bid in held:
            p.change(bid, {"status": "pending"})
        research_ids = [bid for bid in research_ids if bid not in held]
        task = revise_task(state, p, newly)
    if newly:
        p.extra["revised_after"] = revised_after + newly
    return research_ids, task
