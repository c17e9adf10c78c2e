"""Verified citations, query reformulation and per-branch backend choice."""

from __future__ import annotations

import itertools
import json
import re

from research_core.search.base import SearchError
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FailingSearch, FixtureSearch

SIMPLE = "What is quantum computing?"


def test_citation_check_removes_a_fabricated_citation(tmp_path):
    synthesis = "Qubits use superposition [1]. Quantum computers were invented on Mars in 1802 [2]."

    def judge(body: dict) -> str:
        claims = body["messages"][-1]["content"]
        checks = []
        for n, claim in re.findall(r"^(\d+)\. Claim: (.*)$", claims, re.M):
            checks.append({"claim": int(n), "supported": "Mars" not in claim})
        return json.dumps({"checks": checks, "reasoning": "the Mars claim is not in its source"})

    with serve(ScriptedLLM(script={"synthesize_branch": [synthesis], "verify_citations": judge})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(SIMPLE, config(auto_approve=True))
    result = runner.result(snap.run_id)
    text = result.sub_questions[0].synthesis
    assert "Mars" not in text  # the unsupported statement is gone, not only its citation
    assert re.search(r"superposition \[\d\]", text)
    assert result.synthesis.citations_checked == 2 and result.synthesis.citations_supported == 1
    entry = next(e for e in result.log if e.kind == "citations" and "checked" in e.message)
    assert "1/2 supported" in entry.message and "1 unsupported citation(s) removed" in entry.message


def test_citation_judge_failure_falls_back_to_word_overlap(tmp_path):
    synthesis = "Qubits exploit superposition and entanglement [1]. Bananas are yellow fruit [2]."
    with serve(ScriptedLLM(script={"synthesize_branch": [synthesis], "verify_citations": "not json"})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(SIMPLE, config(auto_approve=True))
    result = runner.result(snap.run_id)
    text = result.sub_questions[0].synthesis
    assert re.search(r"entanglement \[\d\]", text)
    assert "Bananas are yellow fruit ." in text or "Bananas are yellow fruit." in text
    entry = next(e for e in result.log if e.kind == "citations" and "checked" in e.message)
    assert "lexical" in entry.message and "word overlap" in entry.reasoning


class EmptyFirst(FixtureSearch):
    """Returns nothing for the first query, then answers normally."""

    def search(self, query, max_results):
        if not self.queries:
            self.queries.append(query)
            return []
        return super().search(query, max_results)


def test_empty_round_leads_to_reformulated_queries(tmp_path):
    backend = EmptyFirst("library")
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url, backends=[backend])
        snap = runner.start(SIMPLE, config(auto_approve=True))
    assert snap.status == "completed"
    prompts = [b["messages"][-1]["content"] for t, b in script.calls if t == "plan_queries"]
    assert "returned no search results" in prompts[1]
    assert "nothing to correct" in prompts[0]
    result = runner.result(snap.run_id)
    assert any(e.kind == "retry" and "after no results" in e.message for e in result.log)


def _rate_limited() -> FailingSearch:
    return FailingSearch("ddg", SearchError("ddg", "DuckDuckGo is rate-limiting requests.", retryable=True))


def test_failing_backend_is_dropped_for_the_branch_unless_sticky(tmp_path):
    slow_stop = {"findings_for_stop": 50, "confidence_for_stop": 1.0, "max_iterations": 5, "auto_approve": True}
    rounds = itertools.count(1)

    def new_words(body: dict) -> str:  # a planner with something new to search each time
        return json.dumps({"queries": [f"quantum computing progress {next(rounds)}"], "reasoning": "r"})

    with serve(ScriptedLLM(script={"plan_queries": new_words})) as (url, _):
        ddg = _rate_limited()
        runner = make_runner(tmp_path, url, backends=[ddg, FixtureSearch("library")])
        snap = runner.start(SIMPLE, config(backend_max_failures=2, **slow_stop))
        result = runner.result(snap.run_id)
        assert ddg.calls == 2
        drop = next(e for e in result.log if e.kind == "source_choice")
        assert "Dropped backend 'ddg'" in drop.message and "errors 2" in drop.reasoning
        assert result.sub_questions[0].dropped_backends == ["ddg"]
        assert result.sub_questions[0].backend_stats["library"]["good"] >= 1

        sticky = _rate_limited()
        runner = make_runner(tmp_path / "b", url, backends=[sticky, FixtureSearch("library")])
        snap = runner.start(SIMPLE, config(backend_max_failures=2, sticky_backends=["ddg"], **slow_stop))
        assert sticky.calls == runner.result(snap.run_id).sub_questions[0].iteration_count == 4


def test_with_the_local_model_citations_are_checked_by_word_overlap_without_a_model_call(tmp_path):
    synthesis = "Qubits exploit superposition and entanglement [1]. Bananas are yellow fruit [2]."
    scripted = ScriptedLLM(script={"synthesize_branch": [synthesis]})
    with serve(scripted) as (url, _):
        runner = make_runner(tmp_path, url, provider="local")
        # the model writes the answer here; by default the embedded model's answers are quotes
        snap = runner.start(SIMPLE, config(auto_approve=True, quoted_answers=False))
        calls = [task for task, _ in scripted.recorded_calls()]
    assert snap.status == "completed", snap.error
    assert "verify_citations" not in calls
    result = runner.result(snap.run_id)
    text = result.sub_questions[0].synthesis
    assert "Bananas are yellow fruit [" not in text  # the citation its source does not support is gone
    entry = next(e for e in result.log if e.kind == "citations" and "checked" in e.message)
    assert "lexical" in entry.message and "not asked" in entry.reasoning
