"""review_plan: the gate where the user approves or edits the plan before research starts."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from research_core.configuration import RunConfig
from research_core.planning.budget import estimate_cost_range, fund_branches, funding_note
from research_core.planning.decompose import plan_to_branches
from research_core.planning.plan import PlanError, validate_plan
from research_core.schemas import LogEntry, Plan, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState


def plan_from_state(state: ResearchState) -> Plan:
    """The current plan as the user sees it."""
    branches = state.get("branches", {})
    subs = [SubQuestion(**branches[b]) for b in state.get("branch_order", []) if b in branches]
    return Plan(question=state["question"], strategy=state.get("strategy") or "multi-faceted", sub_questions=subs)


def review_payload(state: ResearchState, services: Services, error: str | None = None) -> dict[str, Any]:
    """What the review gate shows: the plan, the estimated iterations per branch and the cost range."""
    config = RunConfig(**state["config"])
    plan = plan_from_state(state)
    funding = fund_branches(
        config.max_iterations,
        [sq.priority for sq in plan.sub_questions],
        config.sub_question_min_iterations,
        config.sub_question_max_iterations,
    )
    alloc = funding.shares
    low, high = estimate_cost_range(
        sum(alloc), funding.funded, services.llm.price("work"), services.llm.price("synthesis")
    )
    ids = [sq.id for sq in plan.sub_questions]
    return {
        "kind": "review",
        "question": state["question"],
        "strategy": plan.strategy,
        "sub_questions": [
            sq.model_dump(include={"id", "question_text", "priority", "rationale", "parent_id", "depth"})
            for sq in plan.sub_questions
        ],
        "estimated_iterations": dict(zip(ids, alloc, strict=True)),
        "estimated_cost_usd": [low, high],
        "unfunded": [ids[i] for i in funding.unfunded],
        "budget_note": funding_note(funding, ids, config.max_iterations),
        "error": error,
        "answers": "approve | {'action': 'approve', 'sub_questions': [...edited plan...]} | {'action': 'cancel'}",
    }


def parse_review_answer(answer: Any, state: ResearchState) -> tuple[str, Plan | None]:
    """Interpret the user's answer: ('approve', plan or None) or ('cancel', None).

    Raises PlanError with a message for anything else.
    """
    if isinstance(answer, str):
        if answer.strip().lower() == "approve":
            return "approve", None
        if answer.strip().lower() == "cancel":
            return "cancel", None
        raise PlanError(f"Unknown answer {answer!r}: answer 'approve', 'cancel' or an edited plan.")
    if isinstance(answer, dict):
        action = answer.get("action", "approve" if "sub_questions" in answer else None)
        if action == "cancel":
            return "cancel", None
        if action == "approve":
            if "sub_questions" in answer:
                edited = validate_plan(
                    {**answer, "strategy": answer.get("strategy") or state.get("strategy")},
                    state["question"],
                    config=RunConfig(**state["config"]),
                )
                return "approve", edited
            return "approve", None
        raise PlanError(f"Unknown action {action!r}: use 'approve' or 'cancel'.")
    raise PlanError("The answer must be 'approve', 'cancel' or an edited plan object.")


def review_plan(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Pause with the plan until the user approves it (possibly edited); refuse invalid edits."""
    config = RunConfig(**state["config"])
    if config.auto_approve:
        entry = LogEntry(node="review_plan", message="Plan approved automatically.")
        return {"log": [entry.model_dump()]}
    error: str | None = None
    while True:
        answer = interrupt(review_payload(state, runtime.context, error))
        try:
            action, edited = parse_review_answer(answer, state)
            break
        except PlanError as exc:
            error = str(exc)
    if action == "cancel":
        entry = LogEntry(node="review_plan", message="The user cancelled the run at plan review.")
        return {"stop_requested": True, "status": "cancelled", "log": [entry.model_dump()]}
    if edited is None:
        entry = LogEntry(node="review_plan", message="The user approved the plan.")
        return {"log": [entry.model_dump()]}
    removed = {b: None for b in state.get("branch_order", []) if b not in {sq.id for sq in edited.sub_questions}}
    old = state.get("branches", {})
    kind = "hypothesis" if state.get("mode") == "hypothesis" else "question"
    edited = edited.model_copy(
        update={
            "sub_questions": [
                sq.model_copy(
                    update={
                        "kind": kind,
                        "hypothesis": old.get(sq.id, {}).get("hypothesis")
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
