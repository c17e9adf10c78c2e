"""Flat-vs-hierarchical comparison, the execution log export, and report languages."""

from __future__ import annotations

import json

import pytest

from research_core.cli.main import main
from research_core.configuration import detect_template
from research_core.output.export import export_result
from research_core.runs.compare import compare_modes, compare_runs
from research_core.runs.errors import RunError
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"


def test_compare_runs_both_modes_with_the_same_budget(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        comparison = compare_modes(runner, QUESTION, config(max_iterations=14))
    flat, hier = comparison.runs
    assert (flat.mode, hier.mode) == ("flat", "hierarchical")
    for run in (flat, hier):
        cfg = runner.snapshot(run.run_id).config
        assert cfg["max_iterations"] == 14 and cfg["auto_approve"] is True
        assert run.llm_calls > 0 and run.findings > 0 and run.distinct_sources > 0
    assert hier.iterations <= 14 + 1  # the budget holds (allocation may round the minimums up by one)
    # the scripted judge prefers the longer report in both orders: a consistent winner
    longer = max(comparison.runs, key=lambda r: len(comparison.reports[comparison.runs.index(r)]))
    assert comparison.judgement["more_complete"] == longer.run_id
    assert comparison.judgement["better_supported"] == "tie"
    assert script.count("compare_answers") == 2
    swapped = [b["messages"][-1]["content"] for t, b in script.calls if t == "compare_answers"]

    def tag(text: str, name: str) -> str:
        return text.split(f"<{name}>")[1].split(f"</{name}>")[0]

    assert tag(swapped[0], "report_a") == tag(swapped[1], "report_b")
    assert tag(swapped[0], "report_b") == tag(swapped[1], "report_a")


def test_order_biased_judge_is_reported_inconsistent(tmp_path):
    always_a = json.dumps({"more_complete": "A", "better_organised": "A", "better_supported": "A", "reasoning": "A"})
    with serve(ScriptedLLM(script={"compare_answers": always_a})) as (url, _):
        runner = make_runner(tmp_path, url)
        one = runner.start(QUESTION, config(auto_approve=True))
        two = runner.start("What is quantum computing?", config(auto_approve=True))
        comparison = compare_runs(runner, one.run_id, two.run_id)
        pending = runner.start(QUESTION, config())
        with pytest.raises(RunError, match="has not finished"):
            compare_runs(runner, one.run_id, pending.run_id)
    assert set(comparison.judgement.values()) == {"inconsistent"}


def test_cli_compare_writes_json(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve(ScriptedLLM()) as (url, _):
        docs = tmp_path / "d.md"
        docs.write_text("# React\n\nReact renders components; Vue and Angular are alternatives.\n")
        common = ["--db", str(tmp_path / "a.db"), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
        assert main(["library", "add", str(docs), *common]) == 0
        out = tmp_path / "compare.json"
        assert main(["compare", QUESTION, "--json", str(out), *common]) == 0
    data = json.loads(out.read_text())
    assert [r["mode"] for r in data["runs"]] == ["flat", "hierarchical"]
    assert set(data["judgement"]) == {"more_complete", "better_organised", "better_supported"}
    assert "more_complete" in capsys.readouterr().out


def test_execution_log_exports_as_jsonl_with_reasoning(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True))
    content, name, mime = export_result(runner.result(snap.run_id), "jsonl")
    assert name.endswith(".jsonl") and mime == "application/x-ndjson"
    entries = [json.loads(line) for line in content.splitlines()]
    nodes = {e["node"] for e in entries}
    assert {"classify_question", "decompose_question", "research_step", "synthesize_branch"} <= nodes
    assert any(e["node"] == "decompose_question" and e["reasoning"] == "scripted split" for e in entries)
    assert any(e["kind"] == "evaluate" and e["branch"] == "sq_001" for e in entries)


def test_japanese_question_decomposes_and_reports_in_japanese(tmp_path):
    question = "React、Vue、Angularを比較して、Webアプリ開発に最適なものを教えてください"
    assert detect_template(question) == "comparison"
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(question, config(auto_approve=True, report_language="Japanese"))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert result.question == question and result.mode == "hierarchical"
    assert all("React、Vue、Angular" in sq.question_text for sq in result.sub_questions)
    decompose = next(b for t, b in script.calls if t == "decompose")
    assert "Write the sub-questions in Japanese" in decompose["messages"][0]["content"]
    meta = next(b for t, b in script.calls if t == "meta_synthesis")
    assert "Write in Japanese" in meta["messages"][0]["content"]
    md, _, _ = export_result(result, "md")
    assert question in md


def test_default_language_follows_the_question(tmp_path):
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        runner.start("Qu'est-ce que l'informatique quantique ?", config(auto_approve=True))
    synth = next(b for t, b in script.calls if t == "synthesize_branch")
    assert "the same language as the question" in synth["messages"][0]["content"]
