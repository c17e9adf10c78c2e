"""Re-run one branch of a finished run: reuse every other branch, rebuild the syntheses above it."""

from __future__ import annotations

from typing import Any

from research_core.planning.plan import PlanError, as_priority
from research_core.schemas import SubQuestion
from research_core.state import branches_of
from research_core.text.citations import finding_source_ids
from research_core.tree import BranchTree

RESET_FIELDS: dict[str, Any] = {
    "status": "pending",
    "iteration_count": 0,
    "research_done": False,
    "synthesis": None,
    "confidence": None,
    "stop_reason": None,
    "queries": [],
    "depth_assessment": None,
    "depth_reasoning": None,
    "drill_proposal": None,
    "drill_status": None,
    "backend_stats": {},
    "dropped_backends": [],
    "last_outcome": None,
    "citations_checked": 0,
    "citations_supported": 0,
    "statements_checked": 0,
    "statements_supported": 0,
    "pages_read": 0,
    "pages_failed": 0,
    "pages_not_read": {},
    "shown_passages": [],
}
# a re-researched hypothesis is judged again from scratch (its statement and strategy stay)
HYPOTHESIS_RESET: dict[str, Any] = {"verdict": None, "evidence": None, "confidence": None, "pivot": None}


def reset_branch(branch: SubQuestion, *, question_text: str | None = None, priority: Any = None) -> SubQuestion:
    """`branch` as a re-run starts it: its research and answer cleared (`RESET_FIELDS`, a hypothesis's
    verdict too), with its edited question or priority; PlanError when an edit is refused."""
    edited: dict[str, Any] = dict(RESET_FIELDS)
    if branch.hypothesis:
        edited["hypothesis"] = {**branch.hypothesis, **HYPOTHESIS_RESET}
    if question_text is not None:
        if not question_text.strip():
            raise PlanError(f"{branch.id}: the question text is empty.")
        edited["question_text"] = question_text.strip()
    if priority is not None:
        edited["priority"] = as_priority(priority, branch.id)
    return branch.model_copy(update=edited)


def rerun_branches(
    old: dict[str, Any], branch_id: str, *, question_text: str | None = None, priority: Any = None
) -> tuple[dict[str, SubQuestion], set[str]]:
    """The re-run's branches (`branch_id` reset and edited, its descendants gone, its ancestors
    waiting to be answered again, the rest as they were) and the ids whose findings are dropped."""
    branches = branches_of(old)
    if branch_id not in branches:
        raise PlanError(f"{branch_id!r} is not a branch of this run; choose one of {', '.join(branches)}.")
    branches[branch_id] = reset_branch(branches[branch_id], question_text=question_text, priority=priority)
    tree = BranchTree(branches)
    removed = set(tree.descendants(branch_id))
    for bid in removed:
        del branches[bid]
    for bid in tree.ancestors(branch_id):
        branches[bid] = branches[bid].model_copy(
            update={"status": "researching", "research_done": True, "synthesis": None, "confidence": None}
        )
    return branches, removed | {branch_id}


def rerun_state(
    old: dict[str, Any], branch_id: str, *, question_text: str | None = None, priority: Any = None
) -> dict[str, Any]:
    """The starting state of a re-run: `branch_id` reset (and edited), its old drill-down removed,
    its ancestors waiting to be re-synthesized, everything else reused as it was."""
    branches, dropped = rerun_branches(old, branch_id, question_text=question_text, priority=priority)
    findings = [f for f in old.get("findings", []) if f["sub_question_id"] not in dropped]
    kept_ids = set(finding_source_ids(findings))
    sources = [s for s in old.get("sources", []) if s["id"] in kept_ids]
    done = [b for b, v in branches.items() if v.status == "completed"]
    # The re-run researches exactly the chosen branch: no gates, and no plan reviser adding or
    # dropping other branches (which would no longer be a re-run of one branch).
    config = {**old["config"], "auto_approve": True, "step_mode": False, "adaptive_plan": False}
    return {
        "run_id": old.get("run_id"),
        "question": old["question"],
        "config": config,
        "initial_plan": None,
        "mode": old.get("mode"),
        "strategy": old.get("strategy"),
        "branches": branches,
        "branch_order": [b for b in old.get("branch_order", []) if b in branches],
        "findings": findings,
        "sources": sources,
        "costs": [],
        "log": [
            {
                "node": "rerun",
                "kind": "decision",
                "branch": branch_id,
                "message": f"Re-running {branch_id}; {len(findings)} findings of other branches reused.",
                "reasoning": "",
            }
        ],
        "warnings": [],
        "next_tasks": [],
        "acknowledged": done,
        "revised_after": done,
        "stop_requested": False,
        "final_answer": None,
        "status": None,
        "coverage": None,
    }
