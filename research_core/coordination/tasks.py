"""The tasks `coordinate` hands out (one `Send` each): research chains, branch answers, plan revisions.

Each task is a record of `research_core.task_records` (`ChainTask`, `SynthesisTask`,
`RevisionTask`) naming the node it starts. The run's config is not in a task: every node reads it
from the runtime context (`Services.config`).
"""

from __future__ import annotations

from research_core.configuration import RunConfig
from research_core.coordination.allotments import allocation_left, chain_allotments, segment_length
from research_core.coordination.caps import Caps, drill_down_room
from research_core.coordination.pass_state import CoordinationPass
from research_core.research.depth import can_drill_down
from research_core.schemas import FINAL_STATUSES, SubQuestion
from research_core.state import ResearchState
from research_core.task_records import ChainTask, RevisionTask, SynthesisTask
from research_core.text.citations import cited_source_ids, finding_source_ids
from research_core.tree import BranchTree


def findings_index(findings: list[dict]) -> tuple[dict[str, int], dict[str, list[dict]]]:
    """The findings counted and grouped by branch (`sub_question_id`), in their order."""
    counts: dict[str, int] = {}
    by_branch: dict[str, list[dict]] = {}
    for f in findings:
        counts[f["sub_question_id"]] = counts.get(f["sub_question_id"], 0) + 1
        by_branch.setdefault(f["sub_question_id"], []).append(f)
    return counts, by_branch


def work_waits_on_branches(
    config: RunConfig,
    mode: str,
    revisions_done: int,
    branches: dict[str, SubQuestion],
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
    if any(b.status not in FINAL_STATUSES and bid not in running for bid, b in branches.items()):
        return True
    if (
        config.adaptive_plan
        and mode == "hierarchical"
        and revisions_done < config.max_revisions
        and len(branches) < config.max_total_sub_questions
    ):
        return True
    return any(
        branches[bid].kind == "hypothesis"
        or can_drill_down(
            branches[bid],
            config,
            len(branches),
            min(iterations_left, drill_down_room(config, branches, bid)),
        )
        for bid in running
        if not branches[bid].research_done
    )


def synthesis_task(
    state: ResearchState,
    p: CoordinationPass,
    bid: str,
    findings: list[dict],
    sources_by_id: dict[str, dict],
) -> SynthesisTask:
    """The task answering branch `bid`: its findings, its completed children, and the sources any of them cite."""
    below = BranchTree(p.branches, p.order).children(bid)
    children = [p.branches[c] for c in below if p.branches[c].status == "completed"]
    cited = set(finding_source_ids(findings))
    for child in children:
        cited.update(cited_source_ids(child.synthesis or ""))
    return SynthesisTask(
        question=state["question"],
        branch=p.branches[bid],
        findings=findings,
        children=children,
        sources=[s for sid, s in sources_by_id.items() if sid in cited],
    )


def revise_task(state: ResearchState, p: CoordinationPass, finished: list[str]) -> RevisionTask:
    """The task asking the reviser about the pending plan, after the branches in `finished` completed."""
    return RevisionTask(
        question=state["question"],
        branches=dict(p.branches),
        branch_order=p.order,
        finished=finished,
        revisions_done=p.revisions_done(state),
    )


def research_tasks(
    state: ResearchState,
    p: CoordinationPass,
    caps: Caps,
    research_ids: list[str],
    synthesize: list[str],
    findings_by_branch: dict[str, list[dict]],
    sources_by_id: dict[str, dict],
    limits: dict[str, int] | None = None,
) -> list[ChainTask]:
    """The research chains to start, each with its share of the iterations and cost left.

    When other work waits on these branches, each chain runs one segment and comes back. `limits`
    caps a branch's steps (a drill-down child's share of what the approved branches leave).
    """
    limits = limits or {}
    others_wait = work_waits_on_branches(
        p.config,
        str(state.get("mode")),
        p.revisions_done(state),
        p.branches,
        research_ids + synthesize,
        caps.iterations_left,
    )
    left = {bid: allocation_left(p.branches[bid]) for bid in research_ids}
    left.update({bid: min(left[bid], n) for bid, n in limits.items() if bid in left})
    allotments = chain_allotments(
        left,
        caps.iterations_left,
        p.config.max_total_cost_usd - caps.spent - caps.reservation,
        segment=segment_length([p.branches[bid] for bid in research_ids]) if others_wait else None,
        single_step=p.config.step_mode,
    )
    tree = BranchTree(p.branches, p.order)
    tasks = []
    for bid in research_ids:
        max_steps, max_cost = allotments[bid]
        known = findings_by_branch.get(bid, [])
        tasks.append(
            ChainTask(
                question=state["question"],
                branch=p.branches[bid],
                known_findings=known,
                known_sources=[sources_by_id[sid] for sid in finding_source_ids(known) if sid in sources_by_id],
                answer_when_done=not tree.children(bid),
                others_wait=others_wait,
                branch_count=len(p.branches),
                iterations_left=min(caps.iterations_left, drill_down_room(p.config, p.branches, bid)),
                max_steps=max_steps,
                max_cost_usd=max_cost,
            )
        )
    return tasks
