"""review_plan: the gate where the user approves or edits the plan before research starts."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig
from research_core.gates import (
    ReviewAnswer,
    ReviewCancel,
    ReviewPayload,
    answer_from_resume,
    ask_until_valid,
    parse_review_answer,
)
from research_core.planning.budget import plan_budget
from research_core.planning.decompose import plan_to_branches
from research_core.schemas import LogEntry, Plan
from research_core.services import Services
from research_core.state import ResearchState, branches_of


def plan_from_state(state: ResearchState) -> Plan:
    """The current plan as the user sees it."""
    branches = branches_of(state)
    subs = [branches[b] for b in state.get("branch_order", []) if b in branches]
    return Plan(question=state["question"], strategy=state.get("strategy") or "multi-faceted", sub_questions=subs)


def review_payload(state: ResearchState, services: Services, error: str | None = None) -> dict[str, Any]:
    """What the review gate shows: the plan, the estimated iterations per branch and the cost range."""
    plan = plan_from_state(state)
    budget = plan_budget(
        services.config,
        {sq.id: sq.priority for sq in plan.sub_questions},
        (services.llm.price("work"), services.llm.price("synthesis")),
    )
    low, high = budget.cost_usd or (0.0, 0.0)
    return ReviewPayload(
        question=state["question"],
        strategy=plan.strategy,
        sub_questions=[
            sq.model_dump(include={"id", "question_text", "priority", "rationale", "parent_id", "depth"})
            for sq in plan.sub_questions
        ],
        estimated_iterations=budget.iterations,
        estimated_cost_usd=[low, high],
        unfunded=budget.unfunded,
        budget_note=budget.note,
        error=error,
    ).model_dump()


def read_review(answer: Any, state: ResearchState, config: RunConfig | None) -> ReviewAnswer:
    """The review gate's typed answer as it arrives, its edited plan checked here whatever shape it came in.

    A typed answer (the Runner sends its dump) is read back into its model; a word or an older dict is
    read by the parser. Either way the edited plan then goes through the same checks, against the
    question and the run's limits (`config`): a plan built in code and sent typed is refused just as
    the same plan typed into a page or the CLI is.
    """

    def parse(value: Any) -> ReviewAnswer:
        return parse_review_answer(value, state["question"], state.get("strategy"), config)

    return parse(answer_from_resume("review", answer, parse))


def review_plan(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Pause with the plan until the user approves it (possibly edited); refuse invalid edits."""
    config = runtime.context.config
    if config.auto_approve:
        entry = LogEntry(node="review_plan", message="Plan approved automatically.")
        return {"log": [entry.model_dump()]}
    parsed = ask_until_valid(
        lambda error: review_payload(state, runtime.context, error),
        lambda answer: read_review(answer, state, config),
    )
    if isinstance(parsed, ReviewCancel):
        entry = LogEntry(node="review_plan", message="The user cancelled the run at plan review.")
        return {"stop_requested": True, "status": "cancelled", "log": [entry.model_dump()]}
    edited = parsed.plan
    if edited is None:
        entry = LogEntry(node="review_plan", message="The user approved the plan.")
        return {"log": [entry.model_dump()]}
    removed = {b: None for b in state.get("branch_order", []) if b not in {sq.id for sq in edited.sub_questions}}
    old = branches_of(state)
    kind = "hypothesis" if state.get("mode") == "hypothesis" else "question"
    edited = edited.model_copy(
        update={
            "sub_questions": [
                sq.model_copy(
                    update={
                        "kind": kind,
                        "hypothesis": (old[sq.id].hypothesis if sq.id in old else None)
                        or (
                            {"search_strategy": "", "validation_criteria": "", "verdict": None}
                            if kind == "hypothesis"
                            else None
                        ),
                    }
                )
                for sq in edited.sub_questions
            ]
        }
    )
    update = plan_to_branches(edited)
    update["branches"] = {**removed, **update["branches"]}
    entry = LogEntry(
        node="review_plan", message=f"The user edited and approved the plan ({len(edited.sub_questions)} branches)."
    )
    return {**update, "log": [entry.model_dump()]}
