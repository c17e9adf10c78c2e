"""Depth of a branch (`research/depth.py`): the engine's own verdict, and its drill-down when the model names none."""

from __future__ import annotations

import json

from research_core.configuration import RunConfig
from research_core.research.depth import engine_depth, fallback_drill_question
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, _tag, _user_text, numbered_sentences, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"


def finding(*sources: str, confidence: float = 0.6) -> dict:
    return {"text": "A finding.", "confidence": confidence, "source_ids": list(sources)}


def test_the_engine_calls_evidence_adequate_only_with_enough_findings_from_two_sources_on_every_part() -> None:
    cfg = RunConfig(findings_for_stop=3)
    assert engine_depth([finding("a"), finding("b"), finding("a")], cfg, []) == "adequate"
    assert engine_depth([finding("a"), finding("a"), finding("a")], cfg, []) is None  # one source
    assert engine_depth([finding("a"), finding("b")], cfg, []) is None  # too few findings, too unsure
    assert engine_depth([finding("a", confidence=0.8), finding("b", confidence=0.8)], cfg, []) == "adequate"
    assert engine_depth([finding("a"), finding("b"), finding("c")], cfg, ["how Vue renders"]) is None
    # where "adequate" itself drills down, only the model's verdict can decide
    assert engine_depth([finding("a"), finding("b"), finding("c")], RunConfig(drill_down_on="adequate"), []) is None


def test_the_engine_drill_down_question_names_its_subject() -> None:
    q = "How does SQLite isolate transactions?"
    assert (
        fallback_drill_question(q, [])
        == "How does SQLite isolate transactions: what limits, exceptions or special cases apply?"
    )
    assert fallback_drill_question("How do React and Vue render pages?", ["how Vue renders"]).startswith(
        "how Vue renders"
    )


def test_a_shallow_verdict_without_a_narrower_question_still_drills_down(tmp_path) -> None:
    """The model calls the branch superficial but proposes nothing: the engine proposes the child."""
    shallow = json.dumps({"depth": "superficial", "reasoning": "only generic statements", "drill_into": []})
    with serve(ScriptedLLM(script={"evaluate_depth": [shallow]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1, max_depth=2, adaptive_plan=False))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    parent = result.sub_questions[0]
    children = [sq for sq in result.sub_questions if sq.parent_id == parent.id]
    assert parent.drill_status == "approved" and len(children) == 1
    assert children[0].question_text.startswith(parent.question_text.rstrip("?"))
    assert children[0].status == "completed"
    assert any(e.kind == "drill_down" and "engine proposes" in e.reasoning for e in result.log)


def _first_sentence_of_each_source(body: dict) -> str:
    """An extraction answer picking the first sentence of every source shown."""
    firsts: dict[int, int] = {}
    for n, k, _ in numbered_sentences(_tag(_user_text(body), "sources")):
        firsts.setdefault(n, k)
    picks = [{"sentences": [k], "confidence": 0.8} for k in firsts.values()]
    return json.dumps({"findings": picks, "reasoning": "scripted"})


def test_with_the_embedded_model_well_sourced_branches_are_not_sent_to_the_depth_check(tmp_path) -> None:
    # each source's first sentence: a finding for each framework whose page the step shows
    with serve(ScriptedLLM(script={"extract_findings": _first_sentence_of_each_source})) as (url, script):
        runner = make_runner(tmp_path, url, provider="local")
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1, adaptive_plan=False))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    judged = [sq for sq in result.sub_questions if sq.depth_assessment]
    assert judged and all(sq.depth_assessment == "adequate" for sq in judged)
    by_engine = [e for e in result.log if e.kind == "drill_down" and "judged by the engine" in e.message]
    assert len(by_engine) + script.count("evaluate_depth") == len(judged)
    assert by_engine  # at least one branch's evidence spoke for itself
