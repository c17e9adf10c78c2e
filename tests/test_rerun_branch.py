"""Re-run one branch of a finished run: only that branch is researched again, the rest is reused."""

from __future__ import annotations

import json

import pytest

from research_core.runs.errors import RunError
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve
from tests.test_deep_research import superficial

QUESTION = "Compare React, Vue, and Angular for building web applications"


def _sub_questions(script, task: str, since: int) -> list[str]:
    out = []
    for t, body in script.calls[since:]:
        text = body["messages"][-1]["content"]
        if t == task and "<sub_question>" in text:
            out.append(text.split("<sub_question>")[1].split("</sub_question>")[0])
    return out


def test_rerun_one_branch_reuses_the_others(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        first = runner.start(QUESTION, config(auto_approve=True, adaptive_plan=False))
        old = runner.result(first.run_id)
        mark = len(script.calls)
        snap = runner.rerun_branch(first.run_id, "sq_002", question_text="How big is each community?", priority=0.9)
    assert snap.status == "completed", snap.error
    new = runner.result(snap.run_id)
    assert snap.run_id != first.run_id
    assert runner.store.get(snap.run_id).parent_run_id == first.run_id
    researched = set(_sub_questions(script, "plan_queries", mark))
    assert researched == {"How big is each community?"}
    old_by_id = {sq.id: sq for sq in old.sub_questions}
    new_by_id = {sq.id: sq for sq in new.sub_questions}
    for bid in ("sq_001", "sq_003"):
        assert [f.id for f in new_by_id[bid].findings] == [f.id for f in old_by_id[bid].findings]
    assert new_by_id["sq_002"].question_text == "How big is each community?"
    assert new_by_id["sq_002"].priority == 0.9 and new_by_id["sq_002"].findings
    assert script.count("meta_synthesis") == 2  # the report was rebuilt
    assert new.final_answer and new.costs.llm_calls == len(script.calls) - mark


def test_rerun_of_a_child_rebuilds_its_parent(tmp_path):
    with serve(ScriptedLLM(script={"evaluate_depth": [superficial]})) as (url, script):
        runner = make_runner(tmp_path, url)
        # one branch at a time, so the scripted "superficial" verdict goes to sq_001
        first = runner.start(QUESTION, config(auto_approve=True, adaptive_plan=False, parallel=1))
        mark = len(script.calls)
        snap = runner.rerun_branch(first.run_id, "sq_001.1", question_text="Which benchmark is most cited?")
    assert snap.status == "completed"
    synthesized = _sub_questions(script, "synthesize_branch", mark)
    parent_text = next(sq for sq in runner.result(snap.run_id).sub_questions if sq.id == "sq_001").question_text
    assert synthesized == ["Which benchmark is most cited?", parent_text]


def test_rerun_refuses_unknown_branch_and_unfinished_run(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url)
        done = runner.start(QUESTION, config(auto_approve=True))
        with pytest.raises(RunError, match="not a branch"):
            runner.rerun_branch(done.run_id, "sq_999")
        with pytest.raises(RunError, match="empty"):
            runner.rerun_branch(done.run_id, "sq_001", question_text="  ")
        waiting = runner.start(QUESTION, config())
        with pytest.raises(RunError, match="only a finished run"):
            runner.rerun_branch(waiting.run_id, "sq_001")


def test_rerun_keeps_the_plan_fixed_even_with_an_eager_reviser(tmp_path):
    """The reviser would add a branch after every completion; a re-run still researches one branch only."""
    add = json.dumps(
        {"add": [{"question": "What about mobile support?", "priority": 0.9}], "drop": [], "reasoning": "new angle"}
    )
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        first = runner.start(QUESTION, config(auto_approve=True, adaptive_plan=True))  # the default reviser: no change
        assert script.count("revise_plan") > 0
        mark = len(script.calls)
        script.script["revise_plan"] = add
        snap = runner.rerun_branch(first.run_id, "sq_003")
    assert snap.status == "completed", snap.error
    assert [sq.id for sq in runner.result(snap.run_id).sub_questions] == ["sq_001", "sq_002", "sq_003"]
    assert [t for t, _ in script.calls[mark:] if t == "revise_plan"] == []


def test_rerun_of_a_hypothesis_judges_it_again(tmp_path):
    refuted = json.dumps(
        {"verdict": "refuted", "evidence": "The sources contradict it [1].", "confidence": 3, "pivot": None}
    )
    judged_cost: list[bool] = []

    def judge(body: dict) -> str:
        # the first verdict on the cost hypothesis (sq_001) is "refuted", whichever branch is judged first
        if "is cost" in body["messages"][-1]["content"] and not judged_cost:
            judged_cost.append(True)
            return refuted
        return default_reply("judge_hypothesis", body)

    with serve(ScriptedLLM(script={"judge_hypothesis": judge})) as (url, script):
        runner = make_runner(tmp_path, url)
        first = runner.start(
            "Why do teams pick React over Vue for web applications?", config(mode="hypothesis", auto_approve=True)
        )
        verdicts = [sq.hypothesis["verdict"] for sq in runner.result(first.run_id).sub_questions]
        snap = runner.rerun_branch(first.run_id, "sq_001")
    assert snap.status == "completed", snap.error
    assert verdicts[0] == "refuted"
    rerun = runner.result(snap.run_id).sub_questions
    assert rerun[0].hypothesis["verdict"] == "validated"  # judged again, by the default judge this time
    assert rerun[0].synthesis.startswith("**Verdict: validated**")
    assert script.count("judge_hypothesis") == 3
