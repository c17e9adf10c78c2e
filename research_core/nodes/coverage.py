"""assess_coverage: before the final report, say what the research covered and what it missed."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.citations import markers_to_numbered
from research_core.configuration import RunConfig, language_instruction
from research_core.hypotheses import hypothesis_branches, propose_hypotheses
from research_core.llm import StructuredOutputError
from research_core.nodes.synthesize import ordered_syntheses
from research_core.prompts import render_prompt
from research_core.schemas import CoverageOutput, LogEntry
from research_core.services import Services
from research_core.state import ResearchState


def assess_coverage(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Record covered aspects and gaps; the report's limitations section uses the gaps."""
    config = RunConfig(**state["config"])
    if not config.coverage_check or state.get("status") == "cancelled":
        return {}
    pieces = ordered_syntheses(state)
    if not pieces:
        return {"coverage": {"covered": [], "gaps": ["No branch produced an answer."], "sufficient": False}}
    answers = "\n\n".join(f"{b['question_text']}\n{markers_to_numbered(t, {})[:800]}" for b, t in pieces)
    system, user = render_prompt(
        "assess_coverage", question=state["question"], answers=answers, language=language_instruction(config)
    )
    try:
        out, costs = runtime.context.llm.structured(
            "assess_coverage", CoverageOutput, system, user, node="assess_coverage", max_tokens=500
        )
    except StructuredOutputError as exc:
        entry = LogEntry(
            node="assess_coverage",
            kind="fallback",
            message="Coverage check failed; skipped.",
            reasoning=exc.user_message,
        )
        return {"costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    coverage = out.model_dump()
    message = f"Covered {len(out.covered)} aspect(s); {len(out.gaps)} gap(s)."
    entry = LogEntry(node="assess_coverage", kind="coverage", message=message, reasoning=out.reasoning)
    update = {"coverage": coverage, "costs": [c.model_dump() for c in costs], "log": [entry.model_dump()]}
    if state.get("mode") == "hypothesis" and not out.sufficient and out.gaps:
        update = _more_hypotheses(state, runtime.context, config, out.gaps, update)
    return update


def _more_hypotheses(
    state: ResearchState, services: Services, config: RunConfig, gaps: list[str], update: dict
) -> dict:
    """Add hypotheses aimed at the gaps, within the ceiling and at most two extra rounds."""
    branches = state.get("branches", {})
    rounds = int(state.get("coverage_rounds") or 0)
    room = config.max_hypotheses - sum(1 for b in branches.values() if b.get("kind") == "hypothesis")
    if rounds >= 2 or room <= 0 or state.get("stop_requested"):
        reason = "the ceiling of hypotheses is reached" if room <= 0 else "the extra rounds are used up"
        update["log"].append(
            LogEntry(
                node="assess_coverage", kind="hypothesis", message=f"Gaps remain but no hypothesis added: {reason}."
            ).model_dump()
        )
        return update
    try:
        out, costs = propose_hypotheses(
            services.llm, state["question"], config, focus="; ".join(gaps), count=(1, min(2, room))
        )
    except StructuredOutputError as exc:
        update["costs"] += [c.model_dump() for c in exc.costs]
        return update
    made = hypothesis_branches(out, config, branches, min(2, room))
    update["costs"] += [c.model_dump() for c in costs]
    update["coverage_rounds"] = rounds + 1
    if made:
        update["branches"] = {sq.id: sq.model_dump() for sq in made}
        update["branch_order"] = [*state.get("branch_order", []), *(sq.id for sq in made)]
        update["log"].append(
            LogEntry(
                node="assess_coverage",
                kind="hypothesis",
                message=f"Coverage insufficient: added {', '.join(sq.id for sq in made)}.",
                reasoning=out.reasoning,
            ).model_dump()
        )
    return update
