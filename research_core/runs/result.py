"""Assemble the RunResult (the seeds' result structure) from a run's final state."""

from __future__ import annotations

from typing import Any

from research_core.llm.costs import summarize_costs
from research_core.runs.records import RunResult
from research_core.runs.rows import BranchRow, branch_rows, findings_of
from research_core.schemas import Finding, LogEntry, Source, SubQuestion, SubSynthesisSummary, SynthesisSummary
from research_core.state import branches_of
from research_core.text.citations import global_numbering, markers_to_numbered
from research_core.tree import BranchTree


def numbered_sources(state: dict[str, Any]) -> tuple[dict[str, int], list[Source]]:
    """The global citation numbering and the source list it indexes (cited first, then the rest)."""
    branches = branches_of(state)
    order = BranchTree(branches, state.get("branch_order", [])).depth_first()
    texts = [branches[b].synthesis or "" for b in order if branches[b].synthesis]
    numbering = global_numbering(texts)
    unique: dict[str, Source] = {}
    for s in state.get("sources", []):
        unique.setdefault(s["id"], Source.model_validate(s))
    cited = sorted((sid for sid in numbering if sid in unique), key=lambda sid: numbering[sid])
    rest = [sid for sid in unique if sid not in numbering]
    return numbering, [unique[sid] for sid in cited + rest]


def report_statements(state: dict[str, Any]) -> dict[str, int]:
    """Factual statements in the report and how many a cited source supports.

    A written report counts its own statements; a flat run's report is its branch answer, and a
    report made of branch answers (a fallback) counts theirs.
    """
    own = state.get("report_grounding")
    if own and state.get("mode") != "flat":
        return {"statements_checked": int(own["statements"]), "statements_supported": int(own["supported"])}
    done = [b for b in branches_of(state).values() if b.status == "completed"]
    return {
        "statements_checked": sum(b.statements_checked for b in done),
        "statements_supported": sum(b.statements_supported for b in done),
    }


def numbered_row(row: BranchRow, numbering: dict[str, int]) -> BranchRow:
    """`row` with its answer's and its hypothesis evidence's citation markers as the report's [n]."""
    update: dict[str, Any] = {}
    if row.synthesis:
        update["synthesis"] = markers_to_numbered(row.synthesis, numbering)
    evidence = (row.hypothesis or {}).get("evidence")
    if evidence:
        update["hypothesis"] = {**(row.hypothesis or {}), "evidence": markers_to_numbered(evidence, numbering)}
    return row.model_copy(update=update) if update else row


def result_rows(
    branches: dict[str, SubQuestion], order: list[str], findings: list[Finding], numbering: dict[str, int]
) -> list[BranchRow]:
    """The result's `sub_questions`: a row per branch in tree order, its citations numbered as the
    report's, with its findings."""
    return [numbered_row(row, numbering) for row in branch_rows(branches, order, findings)]


def synthesis_summary(
    state: dict[str, Any], branches: dict[str, SubQuestion], order: list[str], rows: list[BranchRow], sources: int
) -> SynthesisSummary:
    """The result's `synthesis` block: the approach, what was gathered, and each answered branch."""
    mode = state.get("mode") or "flat"
    research_iterations = sum(b.iteration_count for b in branches.values())
    syntheses = sum(1 for b in branches.values() if b.status == "completed")
    overhead = 2 if mode != "flat" else 0  # decomposition + meta-synthesis
    return SynthesisSummary(
        approach=mode if mode in ("hierarchical", "hypothesis") else "flat",
        decomposition_strategy=state.get("strategy") if mode != "flat" else None,
        sub_questions_count=len(order) if mode != "flat" else 0,
        total_iterations=research_iterations + syntheses + overhead,
        total_findings=len(state.get("findings", [])),
        total_sources=sources,
        citations_checked=sum(b.citations_checked for b in branches.values()),
        citations_supported=sum(b.citations_supported for b in branches.values()),
        **report_statements(state),
        sub_syntheses=[
            SubSynthesisSummary(
                id=b.id,
                question=b.question_text,
                priority=b.priority,
                confidence=b.confidence,
                synthesis_length=len(b.synthesis or ""),
            )
            for b in rows
            if b.synthesis
        ],
    )


def build_result(
    run_id: str, state: dict[str, Any], *, started_at: str, finished_at: str, duration_s: float
) -> RunResult:
    """The exportable result of a finished (or stopped) run."""
    branches = branches_of(state)
    order = BranchTree(branches, state.get("branch_order", [])).depth_first()
    numbering, sources = numbered_sources(state)
    sub_questions = result_rows(branches, order, findings_of(state), numbering)
    summary = synthesis_summary(state, branches, order, sub_questions, len(sources))
    mode = state.get("mode") or "flat"
    final = state.get("final_answer") or ""
    return RunResult(
        run_id=run_id,
        question=state.get("question", ""),
        status=state.get("status") or "completed",
        mode=summary.approach,
        final_answer=final,
        hierarchical_synthesis=final if mode != "flat" else None,
        synthesis=summary,
        sub_questions=sub_questions,
        sources=sources,
        costs=summarize_costs(state.get("costs", [])),
        warnings=list(dict.fromkeys(state.get("warnings", []))),
        coverage=state.get("coverage"),
        log=[LogEntry.model_validate(e) for e in state.get("log", [])],
        started_at=started_at,
        finished_at=finished_at,
        duration_s=round(duration_s, 3),
        config=state.get("config"),
    )
