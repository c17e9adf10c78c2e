"""decompose_question: split the question into prioritised sub-questions."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import LLMClient, StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import hypothesis_branches, propose_hypotheses
from research_core.planning.plan import plan_from_decomposition, validate_plan
from research_core.schemas import CostEntry, DecompositionOutput, LogEntry, Plan
from research_core.services import Services
from research_core.state import ResearchState


def propose_plan(llm: LLMClient, question: str, config: RunConfig) -> tuple[Plan, list[str], list[CostEntry], str]:
    """Ask the LLM for a plan. Returns (plan, warnings, costs, reasoning).

    Raises StructuredOutputError when the model cannot produce a valid decomposition.
    """
    system, user = render_prompt(
        "decompose",
        question=question,
        min_sq=config.min_sub_questions,
        max_sq=config.max_sub_questions,
        language=language_instruction(config),
    )
    out, costs = llm.structured("decompose", DecompositionOutput, system, user, node="decompose_question")
    plan, warnings = plan_from_decomposition(question, out, config)
    return plan, warnings, costs, out.reasoning


def plan_to_branches(plan: Plan) -> dict:
    """State update that installs a plan's sub-questions as branches."""
    return {
        "strategy": plan.strategy,
        "branches": {sq.id: sq for sq in plan.sub_questions},
        "branch_order": [sq.id for sq in plan.sub_questions],
    }


def _propose_hypotheses(state: ResearchState, services: Services, config: RunConfig) -> dict:
    try:
        out, costs = propose_hypotheses(services.llm, state["question"], config)
    except StructuredOutputError as exc:
        message = "Hypothesis generation failed, so the question was researched as a whole (flat mode). " + (
            exc.user_message
        )
        entry = LogEntry(node="decompose_question", kind="fallback", message=message)
        return {
            "mode": "flat",
            "costs": [c.model_dump() for c in exc.costs],
            "warnings": [message],
            "log": [entry.model_dump()],
        }
    made = hypothesis_branches(out, config, {}, config.max_hypotheses)
    warnings = []
    if len(made) < config.min_hypotheses:
        warnings.append(f"Only {len(made)} distinct hypothesis(es) proposed, fewer than {config.min_hypotheses}.")
    plan = Plan(question=state["question"], strategy="hypothesis-driven", sub_questions=made)
    entry = LogEntry(node="decompose_question", message=f"Proposed {len(made)} hypotheses.", reasoning=out.reasoning)
    return {
        **plan_to_branches(plan),
        "costs": [c.model_dump() for c in costs],
        "warnings": warnings,
        "log": [entry.model_dump()],
    }


def decompose_question(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Install the supplied plan, or decompose with the LLM; fall back to flat if it cannot."""
    config = runtime.context.config
    if state.get("initial_plan"):
        plan = validate_plan(state["initial_plan"], state["question"])
        entry = LogEntry(node="decompose_question", message=f"Using the supplied plan ({len(plan.sub_questions)}).")
        return {**plan_to_branches(plan), "log": [entry.model_dump()]}
    if state.get("mode") == "hypothesis":
        return _propose_hypotheses(state, runtime.context, config)
    try:
        plan, warnings, costs, reasoning = propose_plan(runtime.context.llm, state["question"], config)
    except StructuredOutputError as exc:
        message = "Decomposition failed, so the question was researched as a whole (flat mode). " + exc.user_message
        entry = LogEntry(node="decompose_question", kind="fallback", message=message)
        return {
            "mode": "flat",
            "costs": [c.model_dump() for c in exc.costs],
            "warnings": [message],
            "log": [entry.model_dump()],
        }
    entry = LogEntry(
        node="decompose_question",
        message=f"Proposed {len(plan.sub_questions)} sub-questions ({plan.strategy}).",
        reasoning=reasoning,
    )
    return {
        **plan_to_branches(plan),
        "costs": [c.model_dump() for c in costs],
        "warnings": warnings,
        "log": [entry.model_dump()],
    }
