"""A run's totals as History and `runs` show them (research_core/runs/progress.py, runs/records.py)."""

from __future__ import annotations

import json

import pytest

from research_core.llm.costs import summarize_costs
from research_core.runs.progress import progress_totals, result_totals
from research_core.runs.records import RunResult, RunTotals
from research_core.schemas import SynthesisSummary


def cost(usd: float, tokens_in: int = 100, tokens_out: int = 20) -> dict:
    return {
        "node": "research_step",
        "task": "extract_findings",
        "model": "m",
        "cost_usd": usd,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
    }


VALUES = {
    "costs": [cost(0.01), cost(0.02, 50, 5), cost(0.0)],
    "branches": {
        bid: {"id": bid, "question_text": f"Question {bid}?", "priority": 0.5, **fields}
        for bid, fields in (
            ("sq_001", {"iteration_count": 3}),
            ("sq_002", {"iteration_count": 2}),
            ("sq_003", {"iteration_count": 0}),  # not started
            ("sq_004", {}),
        )
    },
    "findings": [{"id": "f1"}, {"id": "f2"}, {"id": "f3"}],
    "sources": [{"id": "s1"}, {"id": "s2"}],
}


def test_a_paused_or_failed_run_shows_what_it_spent_and_gathered_so_far():
    totals = progress_totals(VALUES, active_s=12.34567)
    assert totals.cost_usd == pytest.approx(0.03)
    assert (totals.tokens_in, totals.tokens_out, totals.llm_calls) == (250, 45, 3)
    assert totals.iterations == 5  # the research iterations of all branches; unstarted ones count 0
    assert (totals.findings, totals.sources) == (3, 2)
    assert totals.duration_s == 12.346 and totals.partial


def test_a_run_that_has_done_nothing_yet_shows_zeros():
    totals = progress_totals({"branches": None, "findings": None}, active_s=0.0)
    assert totals == RunTotals(partial=True)


def test_stored_totals_mark_only_unfinished_figures_as_partial():
    partial = progress_totals(VALUES, active_s=1.0).to_record()
    assert partial["partial"] is True
    assert list(partial)[:8] == [
        "cost_usd",
        "tokens_in",
        "tokens_out",
        "llm_calls",
        "iterations",
        "findings",
        "sources",
        "duration_s",
    ]
    final = RunTotals(cost_usd=0.5, iterations=7).to_record()
    assert "partial" not in final and final["iterations"] == 7
    assert RunTotals.model_validate_json(json.dumps(final)) == RunTotals(cost_usd=0.5, iterations=7)


def test_a_finished_run_shows_the_figures_of_its_report():
    result = RunResult(
        run_id="r",
        question="q",
        status="completed",
        mode="hierarchical",
        final_answer="a",
        hierarchical_synthesis="a",
        synthesis=SynthesisSummary(
            approach="hierarchical",
            decomposition_strategy="aspects",
            sub_questions_count=2,
            total_iterations=9,
            total_findings=6,
            total_sources=4,
            sub_syntheses=[],
        ),
        sub_questions=[],
        sources=[],
        costs=summarize_costs([cost(0.2, 900, 150), cost(0.05, 100, 50)]),
        warnings=[],
        log=[],
        started_at="2025-01-01T00:00:00+00:00",
        finished_at="2025-01-01T00:01:00+00:00",
        duration_s=42.5,
    )
    totals = result_totals(result)
    assert totals == RunTotals(
        cost_usd=0.25,
        tokens_in=1000,
        tokens_out=200,
        llm_calls=2,
        iterations=9,
        findings=6,
        sources=4,
        duration_s=42.5,
    )
    assert not totals.partial
