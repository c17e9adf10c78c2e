"""Re-run one branch of a finished run: reuse every other branch, rebuild the syntheses above it."""

from __future__ import annotations

from typing import Any

from research_core.planning.plan import PlanError, as_priority
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


def rerun_state(
    old: dict[str, Any], branch_id: str, *, question_text: str | None = None, priority: Any = None
) -> dict[str, Any]:
    """The starting state of a re-run: `branch_id` reset (and edited), its old drill-down removed,
    its ancestors waiting to be re-synthesized, everything else reused as it was."""
    branches = {b: dict(v) for b, v in old.get("branches", {}).items()}
    if branch_id not in branches:
        raise PlanError(f"{branch_id!r} is not a branch of this run; choose one of {', '.join(branches)}.")
    edited = {**branches[branch_id], **RESET_FIELDS}
    if edited.get("hypothesis"):
        edited["hypothesis"] = {**edited["hypothesis"], **HYPOTHESIS_RESET}
    if question_text is not None:
        if not question_text.strip():
            raise PlanError(f"{branch_id}: the question text is empty.")
        edited["question_text"] = question_text.strip()
    if priority is not None:
        edited["priority"] = as_priority(priority, branch_id)
    branches[branch_id] = edited
    tree = BranchTree(branches)
    removed = set(tree.descendants(branch_id))
    for bid in removed:
        del branches[bid]
    for bid in tree.ancestors(branch_id):
        branches[bid].update(status="researching", research_done=True, synthesis=None, confidence=None)
    dropped = removed | {branch_id}
    findings = [f for f in old.get("findings", []) if f["sub_question_id"] not in dropped]
    kept_ids = set(finding_source_ids(findings))
    sources = [s for s in old.get("sources", []) if s["id"] in kept_ids]
    done = [b for b, v in branches.items() if v.get("status") == "completed"]
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
