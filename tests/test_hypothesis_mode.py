"""Hypothesis mode: propose, research, judge, pivot, and add hypotheses when coverage is short."""

from __future__ import annotations

import json

from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "Why do teams pick React over Vue for web applications?"


def test_hypotheses_are_researched_judged_and_reported(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="hypothesis"))
        assert snap.status == "awaiting_review"
        subs = snap.pending["sub_questions"]
        assert len(subs) == 2 and subs[0]["priority"] == 0.7  # confidence 7/10
        snap = runner.resume(snap.run_id, "approve")
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert result.mode == "hypothesis" and result.synthesis.approach == "hypothesis"
    for sq in result.sub_questions:
        assert sq.kind == "hypothesis"
        assert sq.hypothesis["verdict"] == "validated"
        assert sq.hypothesis["search_strategy"]
        assert sq.synthesis.startswith("**Verdict: validated** (confidence 7/10)")
        assert "[" in sq.synthesis
        assert "[[src:" not in sq.hypothesis["evidence"] and "[" in sq.hypothesis["evidence"]
    plan_prompts = [b["messages"][-1]["content"] for t, b in script.calls if t == "plan_queries"]
    assert any("Test the hypothesis:" in p and "search strategy: cost data" in p for p in plan_prompts)
    meta = next(b for t, b in script.calls if t == "meta_synthesis")
    assert "## Hypotheses" in meta["messages"][0]["content"]
    assert "Verdict: validated" in meta["messages"][-1]["content"]
    assert script.count("decompose") == 0 and script.count("judge_hypothesis") == 2


def refute_with_pivot(body: dict) -> str:
    return json.dumps(
        {
            "verdict": "refuted",
            "evidence": "The sources contradict it [1].",
            "confidence": 6,
            "pivot": "Hiring availability, not cost, drives the choice.",
            "reasoning": "contradicted",
        }
    )


def test_refuted_hypothesis_pivots_within_the_ceiling(tmp_path):
    with serve(ScriptedLLM(script={"judge_hypothesis": [refute_with_pivot]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="hypothesis", auto_approve=True, parallel=1, max_hypotheses=3))
    result = runner.result(snap.run_id)
    by_id = {sq.id: sq for sq in result.sub_questions}
    assert by_id["sq_001"].hypothesis["verdict"] == "refuted"
    assert by_id["sq_003"].question_text == "Hiring availability, not cost, drives the choice."
    assert by_id["sq_003"].hypothesis["pivot_of"] == "sq_001"
    assert by_id["sq_003"].status == "completed" and by_id["sq_003"].hypothesis["verdict"] == "validated"

    with serve(ScriptedLLM(script={"judge_hypothesis": [refute_with_pivot]})) as (url, _):
        runner = make_runner(tmp_path / "capped", url)
        snap = runner.start(QUESTION, config(mode="hypothesis", auto_approve=True, parallel=1, max_hypotheses=2))
    result = runner.result(snap.run_id)
    assert len(result.sub_questions) == 2
    assert any("Pivot not taken" in e.message for e in result.log)


def test_insufficient_coverage_adds_hypotheses_for_the_gaps(tmp_path):
    short = json.dumps({"covered": ["cost"], "gaps": ["team experience"], "sufficient": False, "reasoning": "r"})
    more = json.dumps(
        {
            "hypotheses": [{"statement": "Prior team experience with JSX decides it.", "confidence": 6}],
            "reasoning": "gap",
        }
    )
    script = {"assess_coverage": [short], "propose_hypotheses": [None, more]}
    with serve(ScriptedLLM(script=script)) as (url, llm):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(mode="hypothesis", auto_approve=True))
    result = runner.result(snap.run_id)
    assert [sq.id for sq in result.sub_questions] == ["sq_001", "sq_002", "sq_003"]
    assert result.sub_questions[2].hypothesis["verdict"] == "validated"
    focus = [b["messages"][-1]["content"] for t, b in llm.calls if t == "propose_hypotheses"][1]
    assert "team experience" in focus
    assert llm.count("assess_coverage") == 2
