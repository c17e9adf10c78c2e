"""allocate_budget: iterations per branch from priorities (hierarchical) or the whole budget (flat)."""

from __future__ import annotations

from research_core.budget import allocate_iterations, flat_iterations
from research_core.configuration import RunConfig
from research_core.schemas import FLAT_BRANCH_ID, LogEntry, SubQuestion
from research_core.state import ResearchState


def allocate_budget(state: ResearchState) -> dict:
    """Give each active branch its share of the iteration budget."""
    config = RunConfig(**state["config"])
    if state.get("mode") == "flat":
        branch = SubQuestion(
            id=FLAT_BRANCH_ID,
            question_text=state["question"][:2000],
            priority=1.0,
            rationale="Flat research: the whole question is one branch.",
            allocated_iterations=flat_iterations(config.max_iterations),
        )
        stale = {b: None for b in state.get("branch_order", [])}
        entry = LogEntry(
            node="allocate_budget", message=f"Flat research with {branch.allocated_iterations} iterations."
        )
        return {
            "branches": {**stale, FLAT_BRANCH_ID: branch.model_dump()},
            "branch_order": [FLAT_BRANCH_ID],
            "log": [entry.model_dump()],
        }
    branches = state["branches"]
    active = [b for b in state["branch_order"] if branches[b]["status"] != "skipped"]
    shares = allocate_iterations(
        config.max_iterations,
        [branches[b]["priority"] for b in active],
        config.sub_question_min_iterations,
        config.sub_question_max_iterations,
    )
    update = {b: {"allocated_iterations": n} for b, n in zip(active, shares, strict=True)}
    detail = ", ".join(f"{b}: {n}" for b, n in zip(active, shares, strict=True))
    entry = LogEntry(node="allocate_budget", message=f"Iterations per branch: {detail}.")
    return {"branches": update, "log": [entry.model_dump()]}
