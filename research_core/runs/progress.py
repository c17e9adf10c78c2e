"""A run's totals (cost, tokens, calls, iterations, findings, sources, time) as its record keeps them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from research_core.llm.costs import summarize_costs
from research_core.runs.records import RunResult, RunTotals
from research_core.state import branches_of


def progress_totals(values: Mapping[str, Any], active_s: float) -> RunTotals:
    """What an unfinished run has spent and gathered so far, from its checkpoint values (History, `runs`).

    Iterations are the research iterations of its branches; findings and sources are counted as
    gathered (not de-duplicated); the time is its research time, rounded to milliseconds. The
    totals are marked `partial`.
    """
    costs = summarize_costs(values.get("costs", []))
    branches = branches_of(values)
    return RunTotals(
        cost_usd=costs.total_usd,
        tokens_in=costs.tokens_in,
        tokens_out=costs.tokens_out,
        llm_calls=costs.llm_calls,
        iterations=sum(b.iteration_count for b in branches.values()),
        findings=len(values.get("findings", []) or []),
        sources=len(values.get("sources", []) or []),
        duration_s=round(active_s, 3),
        partial=True,
    )


def result_totals(result: RunResult) -> RunTotals:
    """The final totals of a finished run: the figures its report shows."""
    return RunTotals(
        cost_usd=result.costs.total_usd,
        tokens_in=result.costs.tokens_in,
        tokens_out=result.costs.tokens_out,
        llm_calls=result.costs.llm_calls,
        iterations=result.synthesis.total_iterations,
        findings=result.synthesis.total_findings,
        sources=result.synthesis.total_sources,
        duration_s=result.duration_s,
    )
