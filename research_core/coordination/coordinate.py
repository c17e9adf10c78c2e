"""coordinate: between chains, open the gates (step, revision, drill-down) and schedule what runs next.

Research is scheduled as chains (`research_core/research/chain.py`): a branch keeps researching, and
is answered, without coming back here until its research is done or its share of the caps is used
up. When something waits for a branch to finish, the chains run a segment and come back sooner.
"""

from __future__ import annotations

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


def coordinate(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Gates (step, revision, drill-down), cost cap and the scheduling of the next chains."""
    config = RunConfig(**state["config"])
    branches = {b: dict(v) for b, v in state["branches"].items()}
    order = list(state["branch_order"])
    stop = bool(state.get("stop_requested"))
    updates: dict[str, dict] = {}
    log: list[dict] = []
    warnings: list[str] = []
    extra: dict[str, Any] = {}
    acknowledged = list(state.get("acknowledged") or [])

    def change(bid: str, fields: dict) -> None:
        updates.setdefault(bid, {}).update(fields)
        branches.setdefault(bid, {}).update(fields)

    # 1. step gate: pause after each completed branch
    if config.step_mode and not stop:
        done = [b for b in order if branches[b].get("status") == "completed" and b not in acknowledged]
        if done:
            step = _ask(
                lambda error: step_payload(state, branches, done, error),
                lambda answer: parse_step_answer(answer, branches),
            )
            acknowledged += done
            for bid, fields in step.updates.items():
                change(bid, fields)
                log.append(_log(f"Edited at step gate: {fields}", branch=bid))
            if step.action == "stop":
                stop = True
                warnings.append("The run was stopped early by the user; the report uses what was gathered.")
                log.append(_log("The user stopped the run at a step gate."))

    # 2. revision gate (step mode): the reviser's proposal waits for the user
    pending_revision = state.get("revision_pending")
    if pending_revision:
        accepted = None
        if not stop:
            revision = _ask(
                lambda error: RevisionPayload(
                    question=state["question"], changes=pending_revision, error=error
                ).model_dump(),
                lambda answer: parse_revision_answer(answer, pending_revision),
            )
            accepted = revision.changes if isinstance(revision, RevisionAccept) else None
        extra["revision_pending"] = None
        # A proposal the user answered uses up one of `max_revisions`, accepted or not, so someone
        # who keeps saying no is not asked again after every branch.
        extra["revisions_done"] = int(state.get("revisions_done") or 0) + 1
        if accepted:
            rev_updates, order = apply_revision(accepted, branches, order, config)
            for bid, fields in rev_updates.items():
                change(bid, fields)
            extra["branch_order"] = order
            log.append(_log(f"The user accepted the plan revision: {accepted}", kind="revision"))
        else:
            log.append(_log("The plan revision was rejected.", kind="revision"))

    # 3. drill-down proposals: approved by the user in step mode, automatically otherwise
    for bid in list(order):
        b = branches[bid]
        if b.get("drill_status") != "proposed":
            continue
        proposals = b.get("drill_proposal") or []
        if stop:
            children = []
        elif config.step_mode:
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
        room = config.max_total_sub_questions - len(branches)
        children = children[: max(0, room)]
        if not children:
            change(bid, {"drill_status": "rejected"})
            log.append(_log("Drill-down not taken.", kind="drill_down", branch=bid))
            continue
        made = make_children(
            b,
            children,
            set(branches),
            config.drill_down_iterations,
            config.sub_question_min_iterations,
            config.sub_question_max_iterations,
        )
        for child in made:
            change(child.id, child.model_dump())
        order = insert_after_subtree(order, branches, bid, [c.id for c in made])
        extra["branch_order"] = order
        change(bid, {"drill_status": "approved"})
        log.append(
            _log(f"Drill-down: {', '.join(c.id for c in made)} added under {bid}.", kind="drill_down", branch=bid)
        )

    # 3b. hypothesis pivots: a refuted or inconclusive hypothesis may suggest a better one
    for bid in list(order):
        b = branches[bid]
        h = b.get("hypothesis") or {}
        if b.get("kind") != "hypothesis" or b.get("status") != "completed" or not h.get("pivot"):
            continue
        if h.get("pivot_handled"):
            continue
        change(bid, {"hypothesis": {**h, "pivot_handled": True}})
        count = sum(1 for v in branches.values() if v.get("kind") == "hypothesis")
        if stop or count >= config.max_hypotheses:
            log.append(
                _log(
                    f"Pivot not taken: the ceiling of {config.max_hypotheses} hypotheses is reached.",
                    kind="hypothesis",
                    branch=bid,
                )
            )
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
        made = hypothesis_branches(proposal, config, branches, 1, pivot_of=bid)
        if not made:
            log.append(_log("Pivot not taken: it repeats an existing hypothesis.", kind="hypothesis", branch=bid))
            continue
        change(made[0].id, made[0].model_dump())
        order.append(made[0].id)
        extra["branch_order"] = order
        log.append(_log(f"Pivot from {bid}: {made[0].id} added.", kind="hypothesis", branch=bid))

    # 4. cost cap: keep the synthesis reservation
    services = runtime.context
    spent = total_cost(state.get("costs", []))
    open_branches = sum(1 for b in branches.values() if b.get("status") not in FINAL_STATUSES)
    reservation = reserve_synthesis_cost(
        services.llm.price("work"),
        services.llm.price("synthesis"),
        verify_citations=config.verify_citations,
        coverage_check=config.coverage_check,
    ).total(open_branches)
    exhausted = spent > 0 and spent + reservation >= config.max_total_cost_usd
    if exhausted and not state.get("budget_exhausted_logged"):
        message = (
            f"Cost cap reached: ${spent:.4f} spent of ${config.max_total_cost_usd:.2f} "
            f"(${reservation:.4f} kept for synthesis). Research stopped; synthesis continues."
        )
        warnings.append(message)
        log.append(_log(message, kind="budget"))
        extra["budget_exhausted_logged"] = True

    # 4b. the iteration budget is a ceiling for the whole run, drill-downs and revisions included
    active = [b for b in branches.values() if b.get("status") != "skipped"]
    used = sum(int(b.get("iteration_count") or 0) for b in branches.values())
    cap = run_iteration_cap(config.max_iterations, len(active), flat=state.get("mode") == "flat")
    out_of_iterations = used >= cap
    halt_reason = "cost cap reached" if exhausted else "iteration budget spent"
    if (
        out_of_iterations
        and not exhausted
        and any(b.get("status") in ("pending", "researching") and not b.get("research_done") for b in branches.values())
    ):
        message = f"Iteration budget spent ({used} research iterations of {cap}); remaining research stopped."
        if not state.get("iterations_exhausted_logged"):
            warnings.append(message)
            log.append(_log(message, kind="budget"))
            extra["iterations_exhausted_logged"] = True

    # 5. schedule the next chains and syntheses
    counts: dict[str, int] = {}
    findings_by_branch: dict[str, list[dict]] = {}
    for f in state.get("findings", []):
        counts[f["sub_question_id"]] = counts.get(f["sub_question_id"], 0) + 1
        findings_by_branch.setdefault(f["sub_question_id"], []).append(f)
    plan = schedule_steps(
        branches,
        order,
        counts,
        config.parallel,
        stop_requested=stop,
        budget_exhausted=exhausted or out_of_iterations,
        halt_reason=halt_reason,
    )
    for bid, fields in plan.updates.items():
        change(bid, fields)
    for note in plan.notes:
        log.append(_log(note))

    # 6. adaptive plan: after branches complete, ask the reviser before starting more research.
    # Branches already being researched go on beside the revision (the reviser may only change
    # pending ones); branches the scheduler would start now wait, so the reviser can still drop or
    # re-prioritise them. This keeps a revision from stalling every branch in flight.
    revised_after = list(state.get("revised_after") or [])
    newly = [b for b in order if branches[b].get("status") == "completed" and b not in revised_after]
    research_ids = list(plan.research)
    revise_task = None
    if (
        newly
        and config.adaptive_plan
        and state.get("mode") == "hierarchical"
        and not stop
        and not exhausted
        and int(extra.get("revisions_done", state.get("revisions_done") or 0)) < config.max_revisions
        and (
            any(v.get("status") == "pending" for v in branches.values())
            or len(branches) < config.max_total_sub_questions
        )
    ):
        held = [bid for bid in research_ids if state["branches"].get(bid, {}).get("status") == "pending"]
        for bid in held:
            change(bid, {"status": "pending"})
        research_ids = [bid for bid in research_ids if bid not in held]
        revise_task = {
            "node": "revise_plan",
            "payload": {
                "question": state["question"],
                "config": state["config"],
                "branches": {b: dict(v) for b, v in branches.items()},
                "branch_order": order,
                "finished": newly,
                "revisions_done": int(extra.get("revisions_done", state.get("revisions_done") or 0)),
            },
        }
    if newly:
        extra["revised_after"] = revised_after + newly

    sources_by_id = {s["id"]: s for s in state.get("sources", [])}
    tasks: list[dict] = []
    for bid in plan.synthesize:
        fs = findings_by_branch.get(bid, [])
        children = [
            branches[c]
            for c in order
            if branches[c].get("parent_id") == bid and branches[c].get("status") == "completed"
        ]
        cited = set(finding_source_ids(fs))
        for child in children:
            cited.update(cited_source_ids(child.get("synthesis") or ""))
        tasks.append(
            {
                "node": "synthesize_branch",
                "payload": {
                    "question": state["question"],
                    "config": state["config"],
                    "branch": branches[bid],
                    "findings": fs,
                    "children": children,
                    "sources": [s for sid, s in sources_by_id.items() if sid in cited],
                },
            }
        )
    if revise_task is not None:
        tasks.append(revise_task)
    others_wait = work_waits_on_branches(
        config,
        str(state.get("mode")),
        int(extra.get("revisions_done", state.get("revisions_done") or 0)),
        branches,
        research_ids + plan.synthesize,
        cap - used,
    )
    allotments = chain_allotments(
        {bid: allocation_left(branches[bid]) for bid in research_ids},
        cap - used,
        config.max_total_cost_usd - spent - reservation,
        segment=segment_length([branches[bid] for bid in research_ids]) if others_wait else None,
        single_step=config.step_mode,
    )
    for bid in research_ids:
        max_steps, max_cost = allotments[bid]
        tasks.append(
            {
                "node": "research_chain",
                "payload": {
                    "question": state["question"],
                    "config": state["config"],
                    "branch": branches[bid],
                    "known_findings": findings_by_branch.get(bid, []),
                    "known_sources": [
                        sources_by_id[sid]
                        for sid in finding_source_ids(findings_by_branch.get(bid, []))
                        if sid in sources_by_id
                    ],
                    "answer_when_done": not any(v.get("parent_id") == bid for v in branches.values()),
                    "others_wait": others_wait,
                    "branch_count": len(branches),
                    "iterations_left": cap - used,
                    "max_steps": max_steps,
                    "max_cost_usd": max_cost,
                },
            }
        )
    return {
        "branches": updates,
        "next_tasks": tasks,
        "acknowledged": acknowledged,
        "stop_requested": stop,
        "log": log,
        "warnings": warnings,
        **extra,
    }
