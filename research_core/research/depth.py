"""How deep a branch's findings go, and the drill-down questions a shallow branch proposes.

The model judges depth; the engine vouches for it without a call when a small local model would
only confirm what the evidence already shows, and proposes a narrower question itself when the
model calls a branch shallow but names none.
"""

from __future__ import annotations

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.question_shape import stand_alone
from research_core.schemas import FLAT_BRANCH_ID, DepthAssessmentOutput, LogEntry, SubQuestion
from research_core.services import Services
from research_core.text.words import folded

# Depth verdicts that lead to a drill-down, by `RunConfig.drill_down_on`, and how the prompt names them.
SHALLOW: dict[str, tuple[str, ...]] = {"superficial": ("superficial",), "adequate": ("superficial", "adequate")}
SHALLOW_LABELS: dict[str, str] = {"superficial": "superficial", "adequate": "superficial or adequate"}
# Sources a branch's findings must rest on before the engine calls them adequate without asking.
SOURCES_FOR_ADEQUATE = 2
FALLBACK_FOCUS = "what limits, exceptions or special cases apply?"


def can_drill_down(branch: SubQuestion, config: RunConfig, branch_count: int, iterations_left: int) -> bool:
    """Only important questions below the depth limit, with room left in the plan and the budget, may drill down."""
    return (
        iterations_left >= config.drill_down_iterations + 1
        and branch.kind == "question"
        and branch.id != FLAT_BRANCH_ID
        and branch.depth + 1 < config.max_depth
        and branch.priority >= config.drill_down_priority
        and branch.drill_status is None
        and branch_count < config.max_total_sub_questions
    )


def engine_depth(findings: list[dict], config: RunConfig, uncovered: list[str]) -> str | None:
    """'adequate' when the evidence shows it and only a 'superficial' verdict would drill down, else None.

    Adequate: the findings meet the branch's own quality bar (`findings_for_stop` of them, or two
    or more averaging `confidence_for_stop`), rest on at least two distinct sources, and cover
    every part of the branch's question. A verdict of 'adequate' cannot lead to a drill-down
    under `drill_down_on="superficial"`, so the model is asked only where its answer could matter.
    """
    if "adequate" in SHALLOW[config.drill_down_on] or uncovered or not findings:
        return None
    sources = {sid for f in findings for sid in f.get("source_ids", [])}
    average = sum(float(f.get("confidence", 0.0)) for f in findings) / len(findings)
    enough = len(findings) >= config.findings_for_stop or (len(findings) >= 2 and average >= config.confidence_for_stop)
    return "adequate" if enough and len(sources) >= SOURCES_FOR_ADEQUATE else None


def fallback_drill_question(branch_question: str, uncovered: list[str]) -> str:
    """The narrower question the engine proposes when the model calls a branch shallow but names none:
    the first part of the branch's question with no finding yet, else the question's limits and exceptions."""
    if uncovered:
        return stand_alone(uncovered[0].strip().rstrip("?") + "?", branch_question)
    return f"{branch_question.strip().rstrip('?. ')}: {FALLBACK_FOCUS}"


def judged_by_engine(branch: SubQuestion, findings: list[dict]) -> tuple[dict, dict]:
    """The branch update and log of an 'adequate' verdict the engine gave without a model call."""
    sources = len({sid for f in findings for sid in f.get("source_ids", [])})
    reasoning = f"{len(findings)} findings from {sources} sources cover every part of the question."
    update = {
        "depth_assessment": "adequate",
        "depth_reasoning": reasoning,
        "drill_proposal": None,
        "drill_status": "none",
    }
    entry = LogEntry(
        node="research_step",
        branch=branch.id,
        kind="drill_down",
        message="Depth: adequate (judged by the engine, no model call)",
        reasoning=reasoning,
    )
    return update, {"costs": [], "log": [entry.model_dump()]}


def drill_proposals(
    out: DepthAssessmentOutput, branch: SubQuestion, config: RunConfig, room: int, uncovered: list[str]
) -> tuple[list[dict], str]:
    """The drill-down questions a shallow verdict (`drill_down_on`) proposes, at most `max_children`
    and `room`, and the verdict's reasoning. Questions that repeat the branch or each other go; when
    none is left the engine proposes its `fallback_drill_question`."""
    reasoning = out.reasoning
    if out.depth not in SHALLOW[config.drill_down_on] or room <= 0:
        return [], reasoning
    proposals: list[dict] = []
    asked = [" ".join(q.split()) for q in out.drill_into]
    seen = {folded(branch.question_text)}
    by_engine = False
    if not any(len(q) > 3 and folded(q) not in seen for q in asked):
        asked, by_engine = [fallback_drill_question(branch.question_text, uncovered)], True
    for q in asked:
        if len(q) > 3 and folded(q) not in seen:
            seen.add(folded(q))
            proposals.append(
                {
                    "question_text": stand_alone(q, branch.question_text)[:500],
                    "priority": round(branch.priority * 0.9, 2),
                    "rationale": f"Drill-down of {branch.id}: its findings were {out.depth}.",
                }
            )
    proposals = proposals[: min(config.max_children, room)]
    if by_engine and proposals:
        reasoning = f"{reasoning} The model proposed no narrower question; the engine proposes one.".strip()
    return proposals, reasoning


def evaluate_depth(
    services: Services,
    config: RunConfig,
    branch: SubQuestion,
    findings: list[dict],
    room: int,
    uncovered: list[str] | None = None,
) -> tuple[dict, dict]:
    """Ask how deep the branch's findings go; propose drill-down questions when shallow (`drill_down_on`).

    With `engine_judges_depth` (the embedded model's setting), a branch whose evidence `engine_depth`
    vouches for is not asked about.
    A shallow verdict without a usable proposal gets the engine's `fallback_drill_question`.
    Returns (branch update, extra state update with costs and log).
    """
    uncovered = uncovered or []
    if config.engine_judges_depth and engine_depth(findings, config, uncovered):
        return judged_by_engine(branch, findings)
    listing = "\n".join(f"- ({f['confidence']:.1f}) {f['text']}" for f in findings) or "(no findings)"
    system, user = render_prompt(
        "evaluate_depth",
        sub_question=branch.question_text,
        findings=listing,
        max_children=min(config.max_children, room),
        shallow=SHALLOW_LABELS[config.drill_down_on],
        language=language_instruction(config),
    )
    try:
        out, entries = services.llm.structured(
            "evaluate_depth",
            DepthAssessmentOutput,
            system,
            user,
            node="research_step",
            branch=branch.id,
            max_tokens=400,
        )
    except StructuredOutputError as exc:
        entry = LogEntry(
            node="research_step",
            branch=branch.id,
            kind="fallback",
            message="Depth evaluation failed; no drill-down.",
            reasoning=exc.user_message,
        )
        return {"drill_status": "none"}, {"costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    proposals, reasoning = drill_proposals(out, branch, config, room, uncovered)
    update = {
        "depth_assessment": out.depth,
        "depth_reasoning": reasoning,
        "drill_proposal": proposals or None,
        "drill_status": "proposed" if proposals else "none",
    }
    message = f"Depth: {out.depth}" + (f"; proposes {len(proposals)} drill-down question(s)" if proposals else "")
    entry = LogEntry(node="research_step", branch=branch.id, kind="drill_down", message=message, reasoning=reasoning)
    return update, {"costs": [c.model_dump() for c in entries], "log": [entry.model_dump()]}
