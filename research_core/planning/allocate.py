"""allocate_budget: iterations per branch from priorities (hierarchical) or the whole budget (flat)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig
from research_core.planning.budget import flat_iterations, plan_budget
from research_core.schemas import FLAT_BRANCH_ID, LogEntry, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState, branches_of


def unpriced_warnings(services: Services, config: RunConfig) -> list[str]:
    """Say so when a paid model has no known price: its calls count as $0 and the cap cannot stop it."""
    return [
        f"No price is known for the model {name}: its calls are counted as $0, so the cost cap "
        f"(${config.max_total_cost_usd:.2f}) cannot stop this run. Add its price on the Settings page."
        for name in services.llm.unpriced_models()
    ]


def allocate_budget(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Give each active branch its share of the iteration budget (and warn about unpriced models)."""
    config = runtime.context.config
    warnings = unpriced_warnings(runtime.context, config)
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
            "branches": {**stale, FLAT_BRANCH_ID: branch},
            "branch_order": [FLAT_BRANCH_ID],
            "log": [entry.model_dump()],
            "warnings": warnings,
        }
    branches = branches_of(state)
    active = [b for b in state["branch_order"] if branches[b].status != "skipped"]
    budget = plan_budget(config, {b: branches[b].priority for b in active})
    update = {b: {"allocated_iterations": n} for b, n in budget.allocated.items()}
    detail = ", ".join(f"{b}: {n}" for b, n in budget.allocated.items())
    log = [LogEntry(node="allocate_budget", message=f"Iterations per branch: {detail}.").model_dump()]
    # The run's ceiling may not cover every share: the lowest priorities wait for what is left.
    if budget.note:
        warnings.append(budget.note)
        log.append(LogEntry(node="allocate_budget", kind="budget", message=budget.note).model_dump())
    return {"branches": update, "log": log, "warnings": warnings}
