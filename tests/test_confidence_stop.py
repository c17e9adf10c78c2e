"""With the embedded model a branch does not end on the model's own confidence over two findings."""

from __future__ import annotations

import json

from research_core.llm.model_settings import EMBEDDED_MODEL_SETTINGS, HOSTED_MODEL_SETTINGS
from research_core.research.stopping import branch_stop_decision
from tests.conftest import library_run, statement_pages
from tests.fakes.llm_server import ScriptedLLM, _tag, _user_text, numbered_sentences

QUESTION = "How does Python's sqlite3 module report how many rows a statement changed?"


def test_two_confident_findings_end_a_branch_only_when_the_model_is_trusted():
    confident = [0.85, 0.85]
    assert branch_stop_decision(2, 4, 2, confident, distinct_sources=2).stop
    decision = branch_stop_decision(2, 4, 2, confident, distinct_sources=2, trust_confidence=False)
    assert not decision.stop and decision.reason.startswith("continue: 2 findings")
    # three findings or a spent budget still end it
    assert branch_stop_decision(2, 4, 2, [*confident, 0.85], distinct_sources=2, trust_confidence=False).stop
    assert branch_stop_decision(4, 4, 2, confident, distinct_sources=2, trust_confidence=False).stop
    assert EMBEDDED_MODEL_SETTINGS["stop_on_confidence"] is False and HOSTED_MODEL_SETTINGS["stop_on_confidence"]


def _first_sentence_only(body: dict) -> str:
    numbers = [number for _, number, _ in numbered_sentences(_tag(_user_text(body), "sources"))]
    return json.dumps({"findings": [{"sentences": [numbers[0]], "confidence": 0.9}], "reasoning": "-"})


def test_an_embedded_model_branch_reads_on_past_two_confident_findings(tmp_path):
    pages = statement_pages(
        "sqlite3",
        "Python sqlite3 module",
        [
            "The Python sqlite3 module reports changed rows through the cursor of a statement.",
            "The rowcount attribute of a Python sqlite3 cursor holds how many rows a statement changed.",
            "The Python sqlite3 module counts the rows changed by executemany() statements in rowcount.",
            "The total_changes attribute of a Python sqlite3 connection reports all rows changed.",
        ],
    )
    scripted = ScriptedLLM(script={"extract_findings": _first_sentence_only})
    runner, snap = library_run(
        tmp_path, pages, QUESTION, scripted, provider="local", sources_per_prompt=1, engine_picks=False
    )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    evaluations = [e.message for e in result.log if e.kind == "evaluate"]
    # before: "high confidence (0.90 average over 2 findings)" after the second step
    assert not any(m.startswith("high confidence") for m in evaluations), evaluations
    assert len(evaluations) > 2, evaluations  # it searched again after its second finding
