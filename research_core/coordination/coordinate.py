"""coordinate: between chains, open the gates (step, revision, drill-down) and schedule what runs next.

Research is scheduled as chains (`research_core/research/chain.py`): a branch keeps researching, and
is answered, without coming back here until its research is done or its share of the caps is used
up. When something waits for a branch to finish, the chains run a segment and come back sooner.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from research_core.configuration import RunConfig
from research_core.coordination.allotments import allocation_left, chain_allotments, segment_length
from research_core.coordination.scheduling import schedule_steps
from research_core.gates import (
    DrillApprove,
    DrillDownPayload,
    RevisionAccept,
    RevisionPayload,
    StepPayload,
    parse_drill_answer,
    parse_revision_answer,
    parse_step_answer,
)
from research_core.llm.costs import total_cost
from research_core.planning.budget import reserve_synthesis_cost, run_iteration_cap
from research_core.planning.hypotheses import hypothesis_branches
from research_core.planning.plan import PlanError, insert_after_subtree, make_children
from research_core.planning.revision import apply_revision
from research_core.research.step import can_drill_down
from research_core.schemas import FINAL_STATUSES, HypothesesOutput, LogEntry, ProposedHypothesis, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState
from research_core.text.citations import cited_source_ids, finding_source_ids


def _log(message: str, kind: str = "decision", branch: str | None = None, reasoning: str = "") -> dict:
    return LogEntry(node="coordinate", kind=kind, branch=branch, message=message, reasoning=reasoning).model_dump()


def step_payload(state: ResearchState, branches: dict[str, dict], done: list[str], error: str | None) -> dict:
    """What the step gate shows: the branches just finished and the ones still pending."""
    return StepPayload(
        question=state["question"],
        completed=[
            {k: branches[b].get(k) for k in ("id", "question_text", "synthesis", "confidence", "iteration_count")}
            for b in done
        ],
        pending=[
            {k: branches[b].get(k) for k in ("id", "question_text", "priority", "status", "parent_id")}
            for b in state["branch_order"]
            if b in branches and branches[b].get("status") == "pending"
        ],
        error=error,
    ).model_dump()


def _ask(payload_fn: Any, parse: Any) -> Any:
    """Interrupt until `parse` accepts the answer; the gate shows the last refusal."""
    error = None
    while True:
        answer = interrupt(payload_fn(error))
        try:
            return parse(answer)
        except PlanError as exc:
            error = str(exc)


def work_waits_on_branches(
    config: RunConfig,
    mode: str,
    revisions_done: int,
    branches: dict[str, dict],
    running: list[str],
    iterations_left: int,
) -> bool:
    """Whether anything may need `coordinate` as soon as one of the chains starting now finishes.

    A branch neither researched nor answered now (waiting for a slot, held for a revision, or a
    parent waiting for its children), a plan revision still allowed, a drill-down one of them could
    propose, or a hypothesis that could pivot. Without any, each chain runs to its own end.
    """
    if config.step_mode:
        return True
    if any(b.get("status") not in FINAL_STATUSES and bid not in running for bid, b in branches.items()):
        return True
    if (
        config.adaptive_plan
        and mode == "hierarchical"
        and revisions_done < config.max_revisions
        and len(branches) < config.max_total_sub_questions
    ):
        return True
    return any(
        branches[bid].get("kind") == "hypothesis"
        or can_drill_down(SubQuestion(**branches[bid]), config, len(branches), iterations_left)
        for bid in running
        if not branches[bid].get("research_done")
    )


@dataclass
class CoordinationPass:
    """One pass of `coordinate`: the branches and order as changed so far, and what it will return.

    `change` records a branch update both in the working copy (so later steps see it) and in
    `updates` (what the pass returns to the state).
    """

    config: RunConfig
    branches: dict[str, dict]
    order: list[str]
    stop: bool
    acknowledged: list[str]
    updates: dict[str, dict] = field(default_factory=dict)
    log: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: ResearchState, config: RunConfig) -> CoordinationPass:
        """A pass over copies of the state's branches and order, under the run's `config`."""
        return cls(
            config=config,
            branches={b: dict(v) for b, v in state["branches"].items()},
            order=list(state["branch_order"]),
            stop=bool(state.get("stop_requested")),
            acknowledged=list(state.get("acknowledged") or []),
        )

    def change(self, bid: str, fields: dict) -> None:
        """Update branch `bid` with `fields`, in the working copy and in the returned updates."""
        self.updates.setdefault(bid, {}).update(fields)
        self.branches.setdefault(bid, {}).update(fields)

    def revisions_done(self, state: ResearchState) -> int:
        """Plan revisions answered so far, this pass's included."""
        return int(self.extra.get("revisions_done", state.get("revisions_done") or 0))


@dataclass(frozen=True)
class Caps:
    """Where the run stands against its caps: cost spent and reserved, iterations used of the cap."""

    spent: float
    reservation: float
    exhausted: bool
    used: int
    cap: int
    out_of_iterations: bool

    @property
    def halted(self) -> bool:
        """Whether research must stop: the cost cap or the iteration budget is reached."""
        return self.exhausted or self.out_of_iterations

    @property
    def halt_reason(self) -> str:
        """The stop reason given to branches whose research is halted."""
        return "cost cap reached" if self.exhausted else "iteration budget spent"


def open_step_gate(state: ResearchState, p: CoordinationPass) -> None:
    """Step mode: after branches complete (not yet shown), pause; apply the user's edits, or stop."""
    if not p.config.step_mode or p.stop:
        return
    done = [b for b in p.order if p.branches[b].get("status") == "completed" and b not in p.acknowledged]
    if not done:
        return
    step = _ask(
        lambda error: step_payload(state, p.branches, done, error),
        lambda answer: parse_step_answer(answer, p.branches),
    )
    p.acknowledged += done
    for bid, fields in step.updates.items():
        p.change(bid, fields)
        p.log.append(_log(f"Edited at step gate: {fields}", branch=bid))
    if step.action == "stop":
        p.stop = True
        p.warnings.append("The run was stopped early by the user; the report uses what was gathered.")
        p.log.append(_log("The user stopped the run at a step gate."))


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
        revision = _ask(
            lambda error: RevisionPayload(
                question=state["question"], changes=pending_revision, error=error
            ).model_dump(),
            lambda answer: parse_revision_answer(answer, pending_revision),
        )
        accepted = revision.changes if isinstance(revision, RevisionAccept) else None
    p.extra["revision_pending"] = None
    p.extra["revisions_done"] = int(state.get("revisions_done") or 0) + 1
    if accepted:
        rev_updates, p.order = apply_revision(accepted, p.branches, p.order, p.config)
        for bid, fields in rev_updates.items():
            p.change(bid, fields)
        p.extra["branch_order"] = p.order
        p.log.append(_log(f"The user accepted the plan revision: {accepted}", kind="revision"))
    else:
        p.log.append(_log("The plan revision was rejected.", kind="revision"))


def decide_drill_downs(state: ResearchState, p: CoordinationPass) -> None:
    """Proposed drill-downs: approved by the user in step mode, automatically otherwise, none once stopped.

    Children beyond `max_total_sub_questions` are dropped; with none left the drill-down is rejected.
    """
    for bid in list(p.order):
        b = p.branches[bid]
        if b.get("drill_status") != "proposed":
            continue
        proposals = b.get("drill_proposal") or []
        if p.stop:
            children = []
        elif p.config.step_mode:
            drill = _ask(
                lambda error, b=b, proposals=proposals: DrillDownPayload(
                    question=state["question"],
                    branch={k: b.get(k) for k in ("id", "question_text", "depth_assessment", "priority")},
                    reasoning=b.get("depth_reasoning") or "",
                    proposals=proposals,
                    error=error,
                ).model_dump(),
                lambda answer, proposals=proposals: parse_drill_answer(answer, proposals),
            )
            children = drill.children if isinstance(drill, DrillApprove) else []
        else:
            children = proposals
        add_drill_children(p, bid, children)


def add_drill_children(p: CoordinationPass, bid: str, children: list[dict]) -> None:
    """Add the approved children under `bid` (as many as the sub-question ceiling allows), or reject it."""
    room = p.config.max_total_sub_questions - len(p.branches)
    children = children[: max(0, room)]
    if not children:
        p.change(bid, {"drill_status": "rejected"})
        p.log.append(_log("Drill-down not taken.", kind="drill_down", branch=bid))
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
    p.order = insert_after_subtree(p.order, p.branches, bid, [c.id for c in made])
    p.extra["branch_order"] = p.order
    p.change(bid, {"drill_status": "approved"})
    p.log.append(_log(f"Drill-down: {', '.join(c.id for c in made)} added under {bid}.", kind="drill_down", branch=bid))


def take_hypothesis_pivots(p: CoordinationPass) -> None:
    """A completed hypothesis's pivot becomes a new hypothesis, once, unless stopped, at the ceiling or a repeat."""
    for bid in list(p.order):
        b = p.branches[bid]
        h = b.get("hypothesis") or {}
        if b.get("kind") != "hypothesis" or b.get("status") != "completed" or not h.get("pivot"):
            continue
        if h.get("pivot_handled"):
            continue
        p.change(bid, {"hypothesis": {**h, "pivot_handled": True}})
        count = sum(1 for v in p.branches.values() if v.get("kind") == "hypothesis")
        if p.stop or count >= p.config.max_hypotheses:
            message = f"Pivot not taken: the ceiling of {p.config.max_hypotheses} hypotheses is reached."
            p.log.append(_log(message, kind="hypothesis", branch=bid))
            continue
        proposal = HypothesesOutput(
            hypotheses=[
                ProposedHypothesis(
                    statement=h["pivot"],
                    search_strategy=h.get("search_strategy") or "",
                    validation_criteria=h.get("validation_criteria") or "",
                )
            ]
        )
        made = hypothesis_branches(proposal, p.config, p.branches, 1, pivot_of=bid)
        if not made:
            p.log.append(_log("Pivot not taken: it repeats an existing hypothesis.", kind="hypothesis", branch=bid))
            continue
        p.change(made[0].id, made[0].model_dump())
        p.order.append(made[0].id)
        p.extra["branch_order"] = p.order
        p.log.append(_log(f"Pivot from {bid}: {made[0].id} added.", kind="hypothesis", branch=bid))


def apply_caps(state: ResearchState, p: CoordinationPass, services: Services) -> Caps:
    """Check the cost cap (keeping the synthesis reservation) and the run's iteration ceiling.

    The cost cap is reached once something was spent and spent + reservation reaches the cap.
    The iteration budget covers the whole run, drill-downs and revisions included. Each is
    warned about once per run (the iteration budget only while research is still unfinished).
    """
    spent = total_cost(state.get("costs", []))
    open_branches = sum(1 for b in p.branches.values() if b.get("status") not in FINAL_STATUSES)
    reservation = reserve_synthesis_cost(
        services.llm.price("work"),
        services.llm.price("synthesis"),
        verify_citations=p.config.verify_citations,
        coverage_check=p.config.coverage_check,
    ).total(open_branches)
    exhausted = spent > 0 and spent + reservation >= p.config.max_total_cost_usd
    if exhausted and not state.get("budget_exhausted_logged"):
        message = (
            f"Cost cap reached: ${spent:.4f} spent of ${p.config.max_total_cost_usd:.2f} "
            f"(${reservation:.4f} kept for synthesis). Research stopped; synthesis continues."
        )
        p.warnings.append(message)
        p.log.append(_log(message, kind="budget"))
        p.extra["budget_exhausted_logged"] = True
    active = [b for b in p.branches.values() if b.get("status") != "skipped"]
    used = sum(int(b.get("iteration_count") or 0) for b in p.branches.values())
    cap = run_iteration_cap(p.config.max_iterations, len(active), flat=state.get("mode") == "flat")
    out_of_iterations = used >= cap
    unfinished = any(
        b.get("status") in ("pending", "researching") and not b.get("research_done") for b in p.branches.values()
    )
    if out_of_iterations and not exhausted and unfinished and not state.get("iterations_exhausted_logged"):
        message = f"Iteration budget spent ({used} research iterations of {cap}); remaining research stopped."
        p.warnings.append(message)
        p.log.append(_log(message, kind="budget"))
        p.extra["iterations_exhausted_logged"] = True
    return Caps(spent, reservation, exhausted, used, cap, out_of_iterations)


def findings_index(findings: list[dict]) -> tuple[dict[str, int], dict[str, list[dict]]]:
    """The findings counted and grouped by branch (`sub_question_id`), in their order."""
    counts: dict[str, int] = {}
    by_branch: dict[str, list[dict]] = {}
    for f in findings:
        counts[f["sub_question_id"]] = counts.get(f["sub_question_id"], 0) + 1
        by_branch.setdefault(f["sub_question_id"], []).append(f)
    return counts, by_branch


def hold_for_revision(
    state: ResearchState, p: CoordinationPass, research_ids: list[str], exhausted: bool
) -> tuple[list[str], dict | None]:
    """Adaptive plan: after branches complete, ask the reviser before starting more research.

    Only in hierarchical mode, not stopped, under the cost cap and `max_revisions`, with a branch
    pending or room for more. Branches already being researched go on beside the revision (the
    reviser may only change pending ones); branches the scheduler would start now wait, so the
    reviser can still drop or re-prioritise them. Returns the research to start and the revise task.
    """
    revised_after = list(state.get("revised_after") or [])
    newly = [b for b in p.order if p.branches[b].get("status") == "completed" and b not in revised_after]
    revise_task = None
    if (
        newly
        and p.config.adaptive_plan
        and state.get("mode") == "hierarchical"
        and not p.stop
        and not exhausted
        and p.revisions_done(state) < p.config.max_revisions
        and (
            any(v.get("status") == "pending" for v in p.branches.values())
            or len(p.branches) < p.config.max_total_sub_questions
        )
    ):
        held = [bid for bid in research_ids if state["branches"].get(bid, {}).get("status") == "pending"]
        for bid in held:
            p.change(bid, {"status": "pending"})
        research_ids = [bid for bid in research_ids if bid not in held]
        revise_task = {
            "node": "revise_plan",
            "payload": {
                "question": state["question"],
                "branches": {b: dict(v) for b, v in p.branches.items()},
                "branch_order": p.order,
                "finished": newly,
                "revisions_done": p.revisions_done(state),
            },
        }
    if newly:
        p.extra["revised_after"] = revised_after + newly
    return research_ids, revise_task


def synthesis_task(
    state: ResearchState,
    p: CoordinationPass,
    bid: str,
    findings: list[dict],
    sources_by_id: dict[str, dict],
) -> dict:
    """The task answering branch `bid`: its findings, its completed children, and the sources any of them cite."""
    children = [
        p.branches[c]
        for c in p.order
        if p.branches[c].get("parent_id") == bid and p.branches[c].get("status") == "completed"
    ]
    cited = set(finding_source_ids(findings))
    for child in children:
        cited.update(cited_source_ids(child.get("synthesis") or ""))
    return {
        "node": "synthesize_branch",
        "payload": {
            "question": state["question"],
            "branch": p.branches[bid],
            "findings": findings,
            "children": children,
            "sources": [s for sid, s in sources_by_id.items() if sid in cited],
        },
    }


def research_tasks(
    state: ResearchState,
    p: CoordinationPass,
    caps: Caps,
    research_ids: list[str],
    synthesize: list[str],
    findings_by_branch: dict[str, list[dict]],
    sources_by_id: dict[str, dict],
) -> list[dict]:
    """The research chains to start, each with its share of the iterations and cost left.

    When other work waits on these branches, each chain runs one segment and comes back.
    """
    others_wait = work_waits_on_branches(
        p.config,
        str(state.get("mode")),
        p.revisions_done(state),
        p.branches,
        research_ids + synthesize,
        caps.cap - caps.used,
    )
    allotments = chain_allotments(
        {bid: allocation_left(p.branches[bid]) for bid in research_ids},
        caps.cap - caps.used,
        p.config.max_total_cost_usd - caps.spent - caps.reservation,
        segment=segment_length([p.branches[bid] for bid in research_ids]) if others_wait else None,
        single_step=p.config.step_mode,
    )
    tasks = []
    for bid in research_ids:
        max_steps, max_cost = allotments[bid]
        known = findings_by_branch.get(bid, [])
        tasks.append(
            {
                "node": "research_chain",
                "payload": {
                    "question": state["question"],
                    "branch": p.branches[bid],
                    "known_findings": known,
                    "known_sources": [sources_by_id[sid] for sid in finding_source_ids(known) if sid in sources_by_id],
                    "answer_when_done": not any(v.get("parent_id") == bid for v in p.branches.values()),
                    "others_wait": others_wait,
                    "branch_count": len(p.branches),
                    "iterations_left": caps.cap - caps.used,
                    "max_steps": max_steps,
                    "max_cost_usd": max_cost,
                },
            }
        )
    return tasks


def coordinate(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Gates (step, revision, drill-down), pivots, caps, then the scheduling of the next chains and syntheses."""
    p = CoordinationPass.from_state(state, runtime.context.config)
    open_step_gate(state, p)
    open_revision_gate(state, p)
    decide_drill_downs(state, p)
    take_hypothesis_pivots(p)
    caps = apply_caps(state, p, runtime.context)

    counts, findings_by_branch = findings_index(state.get("findings", []))
    plan = schedule_steps(
        p.branches,
        p.order,
        counts,
        p.config.parallel,
        stop_requested=p.stop,
        budget_exhausted=caps.halted,
        halt_reason=caps.halt_reason,
    )
    for bid, fields in plan.updates.items():
        p.change(bid, fields)
    for note in plan.notes:
        p.log.append(_log(note))
    research_ids, revise_task = hold_for_revision(state, p, list(plan.research), caps.exhausted)

    sources_by_id = {s["id"]: s for s in state.get("sources", [])}
    tasks = [synthesis_task(state, p, bid, findings_by_branch.get(bid, []), sources_by_id) for bid in plan.synthesize]
    if revise_task is not None:
        tasks.append(revise_task)
    tasks += research_tasks(state, p, caps, research_ids, plan.synthesize, findings_by_branch, sources_by_id)
    return {
        "branches": p.updates,
        "next_tasks": tasks,
        "acknowledged": p.acknowledged,
        "stop_requested": p.stop,
        "log": p.log,
        "warnings": p.warnings,
        **p.extra,
    }
