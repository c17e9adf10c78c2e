"""LLM faults through the scripted server: every one ends in a retry, a documented fallback,
or a clear failed status with everything gathered so far saved; never a hang, never a crash.

Runs use parallel=1, so the first branch (sq_001) is researched, synthesized and checkpointed
before the second branch's first call, which is where most faults are injected.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time

import pytest

from research_core.configuration import LLMSettings
from research_core.runs.runner import Runner
from tests.conftest import config
from tests.fakes.llm_server import Fault, ScriptedLLM, default_reply, serve
from tests.fakes.search import FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"
SIMPLE = "What is quantum computing?"

pytestmark = pytest.mark.timeout(90)


def make(tmp_path, url: str, **llm) -> Runner:
    values = {"timeout_s": 5.0, "max_retries": 0, **llm}
    settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", **values)
    return Runner(tmp_path / "arbor.db", llm_settings=settings, api_key="sk-test", backends=[FixtureSearch()])


def cfg(**overrides):
    # One step per branch (the scripted model's findings are confident), so the scripts below know
    # which call is sq_002's first.
    values = {"auto_approve": True, "parallel": 1, "mode": "hierarchical", "sub_question_min_iterations": 1}
    return config(**{**values, **overrides})


@pytest.fixture(autouse=True)
def no_unhandled_errors(caplog):
    """An unexpected exception in a run is logged at ERROR by the runner: there must be none."""
    caplog.set_level(logging.WARNING)
    yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def assert_failed_with_first_branch_saved(runner: Runner, run_id: str, message: str) -> None:
    snap = runner.snapshot(run_id)
    assert snap.status == "failed", (snap.status, snap.error)
    assert message in snap.error
    first = next(b for b in snap.branches if b.id == "sq_001")
    assert first.status == "completed" and first.synthesis
    saved = [f for f in snap.findings if f.sub_question_id == "sq_001"]
    assert saved, "the findings made before the fault are not in the checkpoint"
    assert runner.result(run_id) is None  # no half result


def resume_completes(runner: Runner, run_id: str, before: list[dict]) -> None:
    snap = runner.resume(run_id)
    assert snap.status == "completed", (snap.status, snap.error)
    ids = {f.id for f in snap.findings}
    assert {f.id for f in before} <= ids


# ---- timeouts -------------------------------------------------------------------------


def test_a_call_slower_than_the_timeout_fails_the_run_clearly_then_resume_finishes(tmp_path):
    # the second extraction (sq_002's first) hangs for 5 s; the client gives up after 1 s
    script = ScriptedLLM(script={"extract_findings": [None, Fault(status=200, delay_s=5)]})
    with serve(script) as (url, _):
        runner = make(tmp_path, url, timeout_s=1.0)
        started = time.monotonic()
        snap = runner.start(QUESTION, cfg())
        assert time.monotonic() - started < 30
        assert_failed_with_first_branch_saved(runner, snap.run_id, "did not answer in time")
        resume_completes(runner, snap.run_id, snap.findings)


def test_a_timed_out_synthesis_falls_back_to_the_findings(tmp_path):
    script = ScriptedLLM(script={"synthesize_branch": [Fault(status=200, delay_s=5)]})
    with serve(script) as (url, _):
        runner = make(tmp_path, url, timeout_s=1.0)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    first = next(b for b in snap.branches if b.id == "sq_001")
    assert first.synthesis  # the findings list stands in
    assert any("Synthesis of sq_001 failed" in w and "did not answer in time" in w for w in snap.warnings)


# ---- rate limits and server errors ----------------------------------------------------


def test_429_with_retry_after_is_retried_after_the_wait(tmp_path):
    seen: list[float] = []

    def limited_once(body: dict):
        seen.append(time.monotonic())
        return (
            Fault(status=429, retry_after=1)
            if len(seen) == 1
            else json.dumps({"complexity": "simple", "reasoning": "scripted"})
        )

    with serve(ScriptedLLM(script={"classify": limited_once})) as (url, _):
        runner = make(tmp_path, url, max_retries=2)
        snap = runner.start(SIMPLE, config(auto_approve=True))
    assert snap.status == "completed", snap.error
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9  # Retry-After honoured
    assert [e.task for e in snap.costs.entries].count("classify") == 1  # one call charged


def test_persistent_429_fails_the_run_with_a_wait_and_resume_message(tmp_path):
    faults = [None] + [Fault(status=429, retry_after=0.1)] * 3
    with serve(ScriptedLLM(script={"extract_findings": faults})) as (url, script):
        runner = make(tmp_path, url, max_retries=2)
        snap = runner.start(QUESTION, cfg())
        assert script.count("extract_findings") == 4  # one success, then 1 try + 2 retries
        assert_failed_with_first_branch_saved(runner, snap.run_id, "rate-limiting")
        resume_completes(runner, snap.run_id, snap.findings)


def test_http_500_is_retried_then_succeeds(tmp_path):
    faults = [None, Fault(status=500), Fault(status=503)]
    with serve(ScriptedLLM(script={"plan_queries": faults})) as (url, script):
        runner = make(tmp_path, url, max_retries=2)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    assert script.count("plan_queries") == len([e for e in snap.costs.entries if e.task == "plan_queries"]) + 2


def test_persistent_500_fails_the_run_clearly_with_work_saved(tmp_path):
    faults = [None] + [Fault(status=500)] * 3
    with serve(ScriptedLLM(script={"plan_queries": faults})) as (url, _):
        runner = make(tmp_path, url, max_retries=2)
        snap = runner.start(QUESTION, cfg())
        assert_failed_with_first_branch_saved(runner, snap.run_id, "HTTP 500")
        resume_completes(runner, snap.run_id, snap.findings)


def test_meta_synthesis_500_gives_the_documented_fallback_report(tmp_path):
    with serve(ScriptedLLM(script={"meta_synthesis": Fault(status=500)})) as (url, _):
        runner = make(tmp_path, url, max_retries=1)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed_with_fallback"
    result = runner.result(snap.run_id)
    assert result.status == "completed_with_fallback"
    assert all(sq.question_text in result.final_answer for sq in result.sub_questions)
    assert any("final synthesis failed" in w for w in result.warnings)


# ---- connection refused ---------------------------------------------------------------


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_connection_refused_at_the_start_is_a_clear_failure(tmp_path):
    runner = make(tmp_path, _closed_port_url(), max_retries=1)
    started = time.monotonic()
    snap = runner.start(QUESTION, config(auto_approve=True))
    assert time.monotonic() - started < 30
    assert snap.status == "failed"
    assert "Cannot reach the LLM" in snap.error
    assert runner.runs()[0].status == "failed"


def test_server_gone_mid_run_fails_with_findings_saved_then_resumes_elsewhere(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg(step_mode=True))  # pauses after sq_001
        assert snap.status == "awaiting_step"
    dead = make(tmp_path, _closed_port_url())
    snap = dead.resume(snap.run_id, "continue")
    assert_failed_with_first_branch_saved(dead, snap.run_id, "Cannot reach the LLM")
    with serve(ScriptedLLM()) as (url, _):
        again = make(tmp_path, url)
        snap2 = again.resume(snap.run_id)
        while snap2.status == "awaiting_step":
            snap2 = again.resume(snap.run_id, "continue")
    assert snap2.status == "completed", snap2.error
    assert {f.id for f in snap.findings} <= {f.id for f in snap2.findings}


# ---- broken JSON ----------------------------------------------------------------------


def test_truncated_json_is_asked_again_with_the_error(tmp_path):
    truncated = '{"findings": [{"text": "React renders compon'
    with serve(ScriptedLLM(script={"extract_findings": [truncated]})) as (url, script):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    second_ask = next(body for task, body in script.calls if task == "extract_findings" and len(body["messages"]) > 2)
    assert "not valid" in second_ask["messages"][-1]["content"]
    assert any(f.sub_question_id == "sq_001" for f in snap.findings)


def test_extraction_never_valid_records_no_findings_for_that_iteration_and_goes_on(tmp_path):
    bad = ["<html>oops</html>", "```json\n{]\n```", "null"]
    with serve(ScriptedLLM(script={"extract_findings": bad})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    assert any(e.kind == "fallback" and "Finding extraction failed" in e.message for e in snap.log)
    failed = [e for e in snap.costs.entries if e.task == "extract_findings"][:3]
    assert len(failed) == 3  # the three attempts are charged, once each


def test_decomposition_never_valid_falls_back_to_flat_and_says_so(tmp_path):
    with serve(ScriptedLLM(script={"decompose": "I cannot answer in JSON, sorry."})) as (url, script):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
    assert snap.status == "completed", snap.error
    assert snap.mode == "flat"
    assert script.count("decompose") == 3
    assert any("Decomposition failed" in w for w in snap.warnings)


# ---- schema-valid (or nearly) but nonsensical -----------------------------------------


def test_priority_7_in_a_decomposition_is_refused_and_falls_back(tmp_path):
    nonsense = json.dumps(
        {"strategy": "x", "sub_questions": [{"question": "What is React?", "priority": 7, "rationale": "r"}]}
    )
    with serve(ScriptedLLM(script={"decompose": nonsense})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
    assert snap.status == "completed" and snap.mode == "flat"
    assert all(0.0 <= b.priority <= 1.0 for b in snap.branches)


def test_an_empty_question_list_falls_back_to_flat(tmp_path):
    empty = json.dumps({"strategy": "x", "sub_questions": []})
    with serve(ScriptedLLM(script={"decompose": empty})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
    assert snap.status == "completed" and snap.mode == "flat"
    assert any("Decomposition failed" in w for w in snap.warnings)


def test_an_empty_query_list_falls_back_to_the_sub_question(tmp_path):
    with serve(ScriptedLLM(script={"plan_queries": json.dumps({"queries": []})})) as (url, _):
        search = FixtureSearch()
        settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=5, max_retries=0)
        runner = Runner(tmp_path / "a.db", llm_settings=settings, api_key="sk-test", backends=[search])
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    texts = {b.question_text for b in snap.branches}
    assert any(q in texts for q in search.queries)
    assert any(e.kind == "fallback" and "Query planning failed" in e.message for e in snap.log)


def test_findings_citing_source_99_are_dropped(tmp_path):
    ghost = json.dumps({"findings": [{"text": "React was released in 1850.", "confidence": 0.9, "sources": [99]}]})
    with serve(ScriptedLLM(script={"extract_findings": [ghost] * 3})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert not any("1850" in f.text for sq in result.sub_questions for f in sq.findings)
    known = {s.id for s in result.sources}
    assert all(set(f.source_ids) <= known for sq in result.sub_questions for f in sq.findings)
    assert any("dropped (no sentence shown" in e.message for e in result.log)


def test_a_report_citing_source_99_loses_that_citation(tmp_path):
    report = "React leads in adoption [1] and in invented statistics [99].\n\n## Conclusion\nSee above [2]."
    with serve(ScriptedLLM(script={"meta_synthesis": report})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg())
    result = runner.result(snap.run_id)
    assert "[99]" not in result.final_answer
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", result.final_answer)}
    assert cited and max(cited) <= len(result.sources)


def test_a_revision_with_priority_7_and_unknown_ids_changes_nothing_unsafe(tmp_path):
    revision = json.dumps(
        {"add": [], "drop": ["sq_999", "sq_001"], "reprioritize": {"sq_003": 7, "sq_777": 0.1}, "reasoning": "x"}
    )
    with serve(ScriptedLLM(script={"revise_plan": revision})) as (url, _):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    ids = [b.id for b in snap.branches]
    assert "sq_999" not in ids and "sq_777" not in ids
    assert next(b for b in snap.branches if b.id == "sq_001").status == "completed"
    assert all(0.0 <= b.priority <= 1.0 for b in snap.branches)


def test_classification_outside_the_schema_uses_the_pattern_check(tmp_path):
    with serve(ScriptedLLM(script={"classify": json.dumps({"complexity": "medium"})})) as (url, script):
        runner = make(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
        assert snap.status == "completed", snap.error
        assert snap.mode == "hierarchical"  # "compare": its wording decides, the model is not even asked
        assert script.count("classify") == 0
        single = runner.start("What is the speed of light in a vacuum?", config(auto_approve=True))
    assert single.mode == "flat"
    assert any(e.kind == "fallback" and "pattern check" in e.message for e in single.log)


def test_faults_in_parallel_branches_never_hang_the_run(tmp_path):
    """After six good answers, calls alternate a slow timeout and a 500: the run ends, quickly and clearly."""
    lock = threading.Lock()
    n = [0]

    def chaos(task: str):
        def reply(body: dict):
            with lock:
                n[0] += 1
                k = n[0]
            if k <= 6:
                return default_reply(task, body)
            return Fault(status=200, delay_s=3) if k % 2 else Fault(status=500)

        return reply

    tasks = [
        "classify",
        "decompose",
        "plan_queries",
        "extract_findings",
        "evaluate_depth",
        "synthesize_branch",
        "verify_citations",
        "revise_plan",
        "assess_coverage",
        "meta_synthesis",
    ]
    with serve(ScriptedLLM(script={t: chaos(t) for t in tasks})) as (url, _):
        runner = make(tmp_path, url, timeout_s=0.5, max_retries=1)
        started = time.monotonic()
        snap = runner.start(QUESTION, config(auto_approve=True, parallel=4))
        assert time.monotonic() - started < 60
    assert n[0] > 6
    assert snap.status in ("failed", "completed", "completed_with_fallback")
    if snap.status == "failed":
        assert snap.error and "Traceback" not in snap.error
        # steps that succeeded in the failed superstep are kept as pending writes; resume applies them
        with serve(ScriptedLLM()) as (url, _):
            snap = make(tmp_path, url).resume(snap.run_id)
        assert snap.status == "completed", snap.error
