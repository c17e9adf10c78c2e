"""classify_question: decide between flat and hierarchical research."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, looks_complex
from research_core.llm import StructuredOutputError
from research_core.prompts import render_prompt
from research_core.schemas import ClassificationOutput, LogEntry
from research_core.services import Services
from research_core.state import ResearchState


def classify_question(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Pick the run's mode: the user's choice, a supplied plan, or the LLM's judgement."""
    config = RunConfig(**state["config"])
    if state.get("initial_plan"):
        entry = LogEntry(node="classify_question", message="A plan was supplied: hierarchical research.")
        return {"mode": "hierarchical", "log": [entry.model_dump()]}
    if config.mode != "auto":
        entry = LogEntry(node="classify_question", message=f"Mode set by the user: {config.mode}.")
        return {"mode": config.mode, "log": [entry.model_dump()]}
    system, user = render_prompt("classify", question=state["question"])
    try:
        out, costs = runtime.context.llm.structured(
            "classify", ClassificationOutput, system, user, node="classify_question", max_tokens=200
        )
    except StructuredOutputError as exc:
        mode = "hierarchical" if looks_complex(state["question"]) else "flat"
        entry = LogEntry(
            node="classify_question",
            kind="fallback",
            message=f"The model could not classify the question; the pattern check chose {mode}.",
            reasoning=exc.user_message,
        )
        return {"mode": mode, "costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    mode = "hierarchical" if out.complexity == "complex" else "flat"
    entry = LogEntry(
        node="classify_question", message=f"Classified as {out.complexity}: {mode}.", reasoning=out.reasoning
    )
    return {"mode": mode, "costs": [c.model_dump() for c in costs], "log": [entry.model_dump()]}
