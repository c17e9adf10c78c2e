"""assess_coverage: before the final report, say what the research covered and what it missed."""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import hypothesis_branches, propose_hypotheses
from research_core.planning.question_shape import question_parts
from research_core.schemas import CoverageOutput, LogEntry
from research_core.services import Services
from research_core.state import ResearchState, branches_of
from research_core.synthesis.meta import ordered_syntheses
from research_core.text.citations import markers_to_numbered
from research_core.text.similarity import is_near_duplicate
from research_core.tree import BranchTree


def researched_coverage(state: ResearchState) -> tuple[list[str], list[str]]:
    """(covered, gaps) from what was researched, whatever any model says.

    A branch is covered when it was answered from evidence (its own findings, or answered children);
    a skipped, dropped, failed, unfinished or evidence-less branch is a gap.
    """
    branches = branches_of(state)
    with_findings = {f["sub_question_id"] for f in state.get("findings", [])}
    covered: list[str] = []
    gaps: list[str] = []
    tree = BranchTree(branches, state.get("branch_order", []))

    def evidenced(bid: str) -> bool:
        return any(b in with_findings for b in (bid, *tree.descendants(bid)))

    for bid in tree.depth_first():
        b = branches[bid]
        label = b.question_text
        status = b.status
        if status == "completed" and evidenced(bid):
            covered.append(label)
        elif status == "completed":
            gaps.append(f"{label} (no evidence found)")
        elif status == "skipped":
            gaps.append(f"{label} (not researched: {b.stop_reason or 'skipped'})")
        elif status == "failed":
            gaps.append(f"{label} (research failed)")
        else:
            gaps.append(f"{label} (not researched: the run ended first)")
    return covered, gaps


# Gaps the model may add: a small model asked for a list can go on until its token limit.
MAX_MODEL_GAPS = 3


def merge_gaps(own: list[str], proposed: list[str], covered: Sequence[str] = (), question: str = "") -> list[str]:
    """The researched gaps, then the model's gaps that do not repeat one of them nor restate a part
    the research answered from evidence (`covered`): the report has a cited section for that part,
    and a "Not covered" line beside it contradicts what the reader sees. Across the hierarchical
    reports of every recorded benchmark round, 184 of 240 such lines restated a section heading of
    their own report.

    When several parts were researched and every one was answered from evidence (no researched
    gap), a clause of the `question` itself ("how are results ranked") is answered too: the plan
    gives each clause a part of its own, which the model rewords ("What are the ranking methods
    ..."), so the clause is not a gap either. A flat run's one part may leave a clause open."""
    merged, answered = list(own), list(covered)
    if question and len(covered) > 1 and not own:
        answered += question_parts(question)
    for gap in proposed:
        if gap.strip() and is_near_duplicate(gap, merged) is None and is_near_duplicate(gap, answered) is None:
            merged.append(gap)
    return merged


def assess_coverage(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Record covered aspects and gaps; the report's limitations section uses the gaps.

    Covered and gap lists come from what was researched; the model may add gaps, never remove one,
    and may not call a part the research answered from evidence a gap.
    """
    config = runtime.context.config
    if not config.coverage_check or state.get("status") == "cancelled":
        return {}
    covered, own_gaps = researched_coverage(state)
    pieces = ordered_syntheses(state)
    if not pieces:
        gaps = own_gaps or ["No branch produced an answer."]
        return {"coverage": {"covered": [], "gaps": gaps, "sufficient": False, "reasoning": ""}}
    answers = "\n\n".join(f"{b.question_text}\n{markers_to_numbered(t, {})[:800]}" for b, t in pieces)
    system, user = render_prompt(
        "assess_coverage", question=state["question"], answers=answers, language=language_instruction(config)
    )
    try:
        out, costs = runtime.context.llm.structured(
            "assess_coverage", CoverageOutput, system, user, node="assess_coverage", max_tokens=300
        )
    except StructuredOutputError as exc:
        entry = LogEntry(
            node="assess_coverage",
            kind="fallback",
            message="The model's coverage check failed; coverage is what was researched.",
            reasoning=exc.user_message,
        )
        coverage = {"covered": covered, "gaps": own_gaps, "sufficient": not own_gaps, "reasoning": ""}
        return {"coverage": coverage, "costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    gaps = merge_gaps(own_gaps, out.gaps[:MAX_MODEL_GAPS], covered, state["question"])
    coverage = {**out.model_dump(), "covered": covered, "gaps": gaps, "sufficient": out.sufficient and not own_gaps}
    message = (
        f"Covered {len(covered)} researched part(s); {len(gaps)} gap(s) "
        f"({len(own_gaps)} from the research, {len(gaps) - len(own_gaps)} added by the model)."
    )
    entry = LogEntry(node="assess_coverage", kind="coverage", message=message, reasoning=out.reasoning)
    update = {"coverage": coverage, "costs": [c.model_dump() for c in costs], "log": [entry.model_dump()]}
    if state.get("mode") == "hypothesis" and not out.sufficient and out.gaps:
        update = _more_hypotheses(state, runtime.context, config, out.gaps, update)
    return update


def _more_hypotheses(
    state: ResearchState, services: Services, config: RunConfig, gaps: list[str], update: dict
) -> dict:
    """Add hypotheses aimed at the gaps, within the ceiling and at most two extra rounds."""
    branches = branches_of(state)
    rounds = int(state.get("coverage_rounds") or 0)
    room = config.max_hypotheses - sum(1 for b in branches.values() if b.kind == "hypothesis")
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
        update["branches"] = {sq.id: sq for sq in made}
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
