"""The research graph end to end: scripted LLM over real HTTP, fixture search, real SQLite checkpoints."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import config, make_runner
from tests.fakes.llm_server import Fault, ScriptedLLM, serve
from tests.fakes.search import FailingSearch, FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"


def test_review_gate_shows_plan_then_approve_runs_to_a_cited_report(runner, scripted):
    _, script = scripted
    snap = runner.start(QUESTION, config())
    assert snap.status == "awaiting_review"
    assert snap.pending["kind"] == "review"
    subs = snap.pending["sub_questions"]
    assert [s["id"] for s in subs] == ["sq_001", "sq_002", "sq_003"]
    assert snap.pending["estimated_iterations"] == {"sq_001": 5, "sq_002": 5, "sq_003": 4}
    assert script.count("extract_findings") == 0  # nothing researched before approval

    snap = runner.resume(snap.run_id, "approve")
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert result.mode == "hierarchical"
    assert result.synthesis.sub_questions_count == 3
    assert all(sq.status == "completed" for sq in result.sub_questions)
    assert all(sq.findings for sq in result.sub_questions)
    assert "[1]" in result.final_answer
    cited = {int(n) for n in __import__("re").findall(r"\[(\d+)\]", result.final_answer)}
    assert cited and max(cited) <= len(result.sources)
    for sq in result.sub_questions:
        assert all(f.sub_question_id == sq.id for f in sq.findings)
        assert sq.iteration_count <= sq.allocated_iterations
    assert result.costs.llm_calls == len(script.calls)
    assert result.costs.tokens_in > 0 and result.costs.total_usd > 0
    assert set(result.costs.by_node) >= {"decompose_question", "research_step", "synthesize_branch", "meta_synthesize"}


def test_edited_plan_is_what_gets_researched(runner, scripted):
    snap = runner.start(QUESTION, config(parallel=1))
    edited = {
        "action": "approve",
        "sub_questions": [
            {"id": "sq_001", "question_text": "How fast is React in benchmarks?", "priority": 0.9},
            {"question_text": "What does the developer survey say about Vue?", "priority": 0.4},
        ],
    }
    snap = runner.resume(snap.run_id, edited)
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    texts = [sq.question_text for sq in result.sub_questions]
    assert texts == ["How fast is React in benchmarks?", "What does the developer survey say about Vue?"]
    assert [sq.id for sq in result.sub_questions] == ["sq_001", "sq_002"]
    alloc = {sq.id: sq.allocated_iterations for sq in result.sub_questions}
    assert alloc["sq_001"] >= alloc["sq_002"]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"action": "approve", "sub_questions": []}, "no sub-questions"),
        ({"action": "approve", "sub_questions": [{"question_text": "  ", "priority": 0.5}]}, "empty"),
        ({"action": "approve", "sub_questions": [{"question_text": "Q?", "priority": 1.5}]}, "outside 0-1"),
        ({"action": "approve", "sub_questions": [{"question_text": "Q?", "priority": "high"}]}, "number"),
        (
            {
                "action": "approve",
                "sub_questions": [{"id": "a", "question_text": "Q?"}, {"id": "a", "question_text": "R?"}],
            },
            "used twice",
        ),
        ("maybe", "Unknown answer"),
    ],
)
def test_invalid_plan_edit_is_refused_and_gate_stays_open(runner, answer, message):
    snap = runner.start(QUESTION, config())
    snap = runner.resume(snap.run_id, answer)
    assert snap.status == "awaiting_review"
    assert message in snap.pending["error"]
    snap = runner.resume(snap.run_id, "approve")
    assert snap.status == "completed"


def test_simple_question_runs_flat_with_one_synthesis(runner, scripted):
    _, script = scripted
    snap = runner.start("What is quantum computing?", config(auto_approve=True))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert result.mode == "flat"
    assert result.hierarchical_synthesis is None
    assert script.count("decompose") == 0 and script.count("meta_synthesis") == 0
    assert script.count("synthesize_branch") == 1
    assert "quantum" in result.sources[0].title.lower() or "quantum" in result.sources[0].snippet.lower()


def test_broken_decomposition_json_falls_back_to_flat_and_says_so(tmp_path):
    bad = ["{not json", "still not json", '{"strategy": "x", "sub_questions": []}']
    with serve(ScriptedLLM(script={"decompose": list(bad)})) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
        assert snap.status == "completed", snap.error
        result = runner.result(snap.run_id)
    assert result.mode == "flat"
    assert script.count("decompose") == 3  # one try and two re-asks with the error
    assert any("Decomposition failed" in w for w in result.warnings)
    assert result.final_answer


def test_meta_synthesis_failure_falls_back_to_branch_answers(tmp_path):
    with serve(ScriptedLLM(script={"meta_synthesis": [Fault(status=500)]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
    assert snap.status == "completed_with_fallback"
    result = runner.result(snap.run_id)
    assert result.status == "completed_with_fallback"
    for sq in result.sub_questions:
        assert re.search(rf"^## \d+ {re.escape(sq.question_text)}$", result.final_answer, re.MULTILINE)
    assert any("final synthesis failed" in w for w in result.warnings)
    lead = re.split(r"^## ", result.final_answer, flags=re.MULTILINE)[0]
    assert re.search(r"\[\d+\]", lead), "the report opens with a cited direct answer picked from the branches"


def test_an_overview_no_source_supports_gives_way_to_the_branch_answers_most_direct_sentences(tmp_path):
    unsupported = (
        "React, Vue and Angular are the three fastest frameworks ever measured on every benchmark [1]. "
        "Angular was written by Microsoft in 1998 for mainframe terminals [2]."
    )
    with serve(ScriptedLLM(script={"meta_synthesis": [unsupported]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    lead = re.split(r"^## ", result.final_answer, flags=re.MULTILINE)[0]
    assert "fastest frameworks" not in result.final_answer and "mainframe" not in result.final_answer
    assert re.search(r"\[\d+\]", lead), lead
    first_branch = re.split(r"^## ", result.final_answer, flags=re.MULTILINE)[1]
    assert any(s.strip() and s.strip() in first_branch for s in re.split(r"(?<=[.!?])\s+", lead))


def test_parallel_branches_all_researched(tmp_path):
    with serve(ScriptedLLM(latency_by_task={"extract_findings": 0.2})) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=3))
    assert snap.status == "completed"
    # with three slots every branch starts in the first round
    first_round = [b for t, b in script.calls if t == "plan_queries"][:3]
    subs = {json.dumps(b["messages"][-1]["content"]).split("<sub_question>")[1][:30] for b in first_round}
    assert len(subs) == 3


def test_sequential_order_follows_priority(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=1))
    assert snap.status == "completed"
    order = []
    for task, body in script.calls:
        if task in ("plan_queries", "synthesize_branch"):
            sq = body["messages"][-1]["content"].split("<sub_question>")[1].split("</sub_question>")[0]
            order.append((task, sq[:20]))
    branches = [sq for _, sq in order]
    # each branch is researched to the end and synthesized before the next one starts
    seen: list[str] = []
    for sq in branches:
        if not seen or seen[-1] != sq:
            assert sq not in seen
            seen.append(sq)
    assert len(seen) == 3
    assert seen[0].startswith("What are the core")  # priority 1.0 first


def test_cost_cap_stops_research_but_still_synthesizes(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        # ~$0.0063 is reserved for the four syntheses, three citation checks and the coverage check at
        # gpt-4o-mini prices; leave room for a little research. The stop rules cannot fire, so the
        # first branch would research on (a branch that finishes early is answered at once, and its
        # unused reservation goes back to research, which is what the cap is for).
        snap = runner.start(
            QUESTION,
            config(
                auto_approve=True,
                max_total_cost_usd=0.0066,
                parallel=1,
                confidence_for_stop=1.0,
                findings_for_stop=1000,
            ),
        )
    assert snap.status == "completed"
    result = runner.result(snap.run_id)
    assert any("Cost cap reached" in w for w in result.warnings)
    assert script.count("meta_synthesis") == 1
    statuses = [sq.status for sq in result.sub_questions]
    assert statuses[0] == "completed" and result.sub_questions[0].findings
    assert "skipped" in statuses
    research_cost = sum(e.cost_usd for e in result.costs.entries if e.node == "research_step")
    assert research_cost < 0.0066
    assert result.costs.total_usd <= 0.0066  # the cap holds for the whole run, checks included


def test_unreachable_web_search_is_reported_and_library_still_used(tmp_path):
    failing = FailingSearch("ddg")
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url, backends=[failing, FixtureSearch("library")])
        snap = runner.start("What is quantum computing?", config(auto_approve=True))
    assert snap.status == "completed"
    result = runner.result(snap.run_id)
    assert failing.calls == 1  # disabled for the rest of the run after the first failure
    assert any("unreachable" in w for w in result.warnings)
    assert result.sources and all(s.backend == "library" for s in result.sources)


def test_llm_down_fails_run_with_message_and_resume_finishes_it(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(parallel=1))
        run_id = snap.run_id
    # the server is gone now
    snap = runner.resume(run_id, "approve")
    assert snap.status == "failed"
    assert "Cannot reach the LLM" in snap.error
    with serve(ScriptedLLM()) as (url2, _):
        runner2 = make_runner(tmp_path, url2)
        snap = runner2.resume(run_id)
    assert snap.status == "completed", snap.error


def test_step_mode_pauses_after_each_branch_and_accepts_edits_and_stop(runner):
    snap = runner.start(QUESTION, config(step_mode=True, parallel=1))
    snap = runner.resume(snap.run_id, "approve")
    assert snap.status == "awaiting_step"
    assert [c["id"] for c in snap.pending["completed"]] == ["sq_001"]
    assert {p["id"] for p in snap.pending["pending"]} == {"sq_002", "sq_003"}
    bad = runner.resume(snap.run_id, {"action": "continue", "edits": [{"id": "sq_001", "priority": 0.1}]})
    assert bad.status == "awaiting_step" and "only pending" in bad.pending["error"]
    snap = runner.resume(
        snap.run_id,
        {"action": "continue", "edits": [{"id": "sq_003", "skip": True}, {"id": "sq_002", "question_text": "Edited?"}]},
    )
    assert snap.status == "awaiting_step"
    assert [c["id"] for c in snap.pending["completed"]] == ["sq_002"]
    assert snap.pending["completed"][0]["question_text"] == "Edited?"
    assert snap.pending["pending"] == []  # sq_003 was skipped
    snap = runner.resume(snap.run_id, "continue")
    assert snap.status == "completed"
    result = runner.result(snap.run_id)
    assert [sq.status for sq in result.sub_questions] == ["completed", "completed", "skipped"]


def test_stop_early_synthesizes_what_is_there(runner):
    snap = runner.start(QUESTION, config(step_mode=True, parallel=1))
    snap = runner.resume(snap.run_id, "approve")
    snap = runner.resume(snap.run_id, "stop")
    assert snap.status == "completed"
    result = runner.result(snap.run_id)
    assert [sq.status for sq in result.sub_questions] == ["completed", "skipped", "skipped"]
    assert any("stopped early" in w for w in result.warnings)
    assert result.final_answer


def test_empty_question_is_refused(runner):
    from research_core.runs.errors import RunError

    with pytest.raises(RunError, match="empty"):
        runner.start("   \n\t ", config())
    assert runner.runs() == []


def test_supplied_plan_skips_decomposition(runner, scripted):
    _, script = scripted
    plan = {"strategy": "comparison", "sub_questions": [{"question_text": "What is React?", "priority": 1.0}]}
    snap = runner.start(QUESTION, config(auto_approve=True), plan=plan)
    assert snap.status == "completed"
    assert script.count("decompose") == 0 and script.count("classify") == 0
    assert [b.question_text for b in snap.branches] == ["What is React?"]


def test_a_model_without_a_price_is_named_in_the_warnings(tmp_path):
    from research_core.configuration import LLMSettings
    from research_core.runs.runner import Runner

    with serve(ScriptedLLM()) as (url, _):
        llm = LLMSettings(provider="openai", base_url=url, model="mystery-model-9", timeout_s=10, max_retries=0)
        runner = Runner(tmp_path / "a.db", llm_settings=llm, api_key="sk-test", backends=[FixtureSearch()])
        snap = runner.start("What is quantum computing?", config(auto_approve=True, max_total_cost_usd=0.5))
        priced = make_runner(tmp_path / "priced", url).start("What is quantum computing?", config(auto_approve=True))
    result = runner.result(snap.run_id)
    assert result.costs.total_usd == 0 and result.costs.llm_calls > 0
    unpriced = [w for w in result.warnings if "No price is known for the model mystery-model-9" in w]
    assert len(unpriced) == 1 and "$0.50" in unpriced[0]
    assert not any("No price is known" in w for w in priced.warnings)


def test_a_typed_plan_over_the_runs_limits_is_refused_like_the_same_plan_typed_as_words(runner):
    """`Runner.resume` with a typed approval goes through the plan checks a page or the CLI applies."""
    from research_core.gates import ReviewApprove
    from research_core.schemas import Plan, SubQuestion

    rows = [SubQuestion(id=f"sq_00{n}", question_text=f"What about option {n}?", priority=0.5) for n in range(1, 4)]
    snap = runner.start(QUESTION, config(max_sub_questions=2, min_sub_questions=1))
    typed = runner.resume(snap.run_id, ReviewApprove(plan=Plan(question=QUESTION, sub_questions=rows)))
    as_words = runner.resume(snap.run_id, {"sub_questions": [sq.model_dump() for sq in rows]})
    for refused in (typed, as_words):
        assert refused.status == "awaiting_review", refused.error
        assert "3 top-level sub-questions; the limit is 2 (max_sub_questions)" in refused.pending["error"]
    # a finished branch handed in with the typed plan starts afresh, as a plan typed as words does
    done = rows[0].model_copy(update={"status": "completed", "iteration_count": 4})
    snap = runner.resume(snap.run_id, ReviewApprove(plan=Plan(question=QUESTION, sub_questions=[done, rows[1]])))
    assert snap.status == "completed", snap.error
    researched = {e.branch for e in snap.log if e.node == "research_step"}
    assert {"sq_001", "sq_002"} <= researched


def test_typed_answers_reach_the_gates_as_plain_json(runner, monkeypatch):
    from research_core.gates import ReviewApprove, StepAnswer, parse_answer, read_payload
    from research_core.runs import runner as runner_module
    from research_core.schemas import Plan, SubQuestion

    sent = []
    command = runner_module.Command
    monkeypatch.setattr(runner_module, "Command", lambda resume: sent.append(resume) or command(resume=resume))
    snap = runner.start(QUESTION, config(step_mode=True, parallel=1))
    plan = Plan(
        question=QUESTION,
        sub_questions=[
            SubQuestion(id="sq_001", question_text="How fast is React in benchmarks?", priority=0.9),
            SubQuestion(id="sq_002", question_text="What does the developer survey say about Vue?", priority=0.4),
        ],
    )
    snap = runner.resume(snap.run_id, ReviewApprove(plan=plan))
    assert snap.status == "awaiting_step", snap.error
    edit = {"edits": [{"id": "sq_002", "question_text": "What do surveys say about Vue?"}]}
    snap = runner.resume(snap.run_id, parse_answer(read_payload(snap.pending), edit))
    assert snap.status == "awaiting_step" and snap.pending["completed"][0]["id"] == "sq_002"
    snap = runner.resume(snap.run_id, StepAnswer())
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert [sq.question_text for sq in result.sub_questions] == [
        "How fast is React in benchmarks?",
        "What do surveys say about Vue?",
    ]
    assert [type(answer) for answer in sent] == [dict, dict, dict]  # typed answers go in as their JSON dump
    assert json.loads(json.dumps(sent)) == sent
    assert sent[1] == {"action": "continue", "updates": {"sq_002": {"question_text": "What do surveys say about Vue?"}}}
