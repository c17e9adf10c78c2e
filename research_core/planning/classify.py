"""classify_question: decide between flat and hierarchical research."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.question_shape import multi_part_signals
from research_core.schemas import ClassificationOutput, LogEntry
from research_core.services import Services
from research_core.state import ResearchState

# A question the model calls complex, with no multi-part wording, goes hierarchical only when it is
# this long: short single questions ("What is X used for in Y?") are single facts.
LLM_COMPLEX_MIN_WORDS = 14


def mode_from_signals(question: str, signals: list[str], llm_view: str | None) -> tuple[str, str]:
    """(mode, why) from the question's wording and the LLM's view ("simple", "complex" or None).

    Rule: wording that shows several parts decides hierarchical whatever the model says; without
    such wording the question runs flat unless the model calls it complex and it is long enough to
    hold several parts.
    """
    if signals:
        return "hierarchical", "the question " + "; ".join(signals)
    words = len(question.split())
    if llm_view == "complex" and words >= LLM_COMPLEX_MIN_WORDS:
        return "hierarchical", f"the model judged it complex and it is long ({words} words)"
    if llm_view == "complex":
        return "flat", f"the model judged it complex, but it is a single short question ({words} words)"
    if llm_view is None and (words > 25):
        return "hierarchical", f"the model could not classify it and it is long ({words} words)"
    return "flat", "a single question with no comparison, list or chain of clauses"


def classify_question(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Pick the run's mode: the user's choice, a supplied plan, or the question's shape and the LLM's view."""
    config = runtime.context.config
    if state.get("initial_plan"):
        entry = LogEntry(node="classify_question", message="A plan was supplied: hierarchical research.")
        return {"mode": "hierarchical", "log": [entry.model_dump()]}
    if config.mode != "auto":
        entry = LogEntry(node="classify_question", message=f"Mode set by the user: {config.mode}.")
        return {"mode": config.mode, "log": [entry.model_dump()]}
    question = state["question"]
    signals = multi_part_signals(question)
    if signals:
        mode, why = mode_from_signals(question, signals, None)
        entry = LogEntry(node="classify_question", message=f"Classified by its wording: {mode}.", reasoning=why)
        return {"mode": mode, "log": [entry.model_dump()]}
    system, user = render_prompt("classify", question=question)
    try:
        out, costs = runtime.context.llm.structured(
            "classify", ClassificationOutput, system, user, node="classify_question", max_tokens=200
        )
    except StructuredOutputError as exc:
        mode, why = mode_from_signals(question, signals, None)
        entry = LogEntry(
            node="classify_question",
            kind="fallback",
            message=f"The model could not classify the question; the pattern check chose {mode}: {why}.",
            reasoning=exc.user_message,
        )
        return {"mode": mode, "costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    mode, why = mode_from_signals(question, signals, out.complexity)
    entry = LogEntry(
        node="classify_question",
        message=f"Classified as {mode}: {why}.",
        reasoning=f"The model said {out.complexity}: {out.reasoning}",
    )
    return {"mode": mode, "costs": [c.model_dump() for c in costs], "log": [entry.model_dump()]}
