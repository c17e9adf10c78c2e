"""With the embedded model a branch researches until it has two findings for each part of its question."""

from __future__ import annotations

import json

from research_core.llm.model_settings import EMBEDDED_MODEL_SETTINGS, HOSTED_MODEL_SETTINGS
from research_core.research.stopping import MAX_ITERATIONS_FOR_MISSING, branch_stop_decision
from tests.conftest import library_run, statement_pages
from tests.fakes.llm_server import ScriptedLLM, _tag, _user_text, numbered_sentences

QUESTION = "Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?"


def test_three_findings_for_three_parts_do_not_end_the_branch_before_six_steps():
    confident = [0.9, 0.8, 0.8]  # the embedded model is this sure of whatever it found first
    # before: "enough findings (3) after 2 iterations"
    assert branch_stop_decision(2, 12, 2, confident, distinct_sources=3).stop
    decision = branch_stop_decision(2, 12, 2, confident, distinct_sources=3, wanted_findings=6)
    assert not decision.stop and decision.reason.startswith("continue: 3 of 6 findings wanted")
    assert branch_stop_decision(2, 12, 2, [*confident] * 2, distinct_sources=3, wanted_findings=6).stop
    # a library with too little on the question ends the search after a few steps, not the whole budget
    assert branch_stop_decision(
        MAX_ITERATIONS_FOR_MISSING, 12, 2, confident, distinct_sources=3, wanted_findings=6
    ).stop
    assert EMBEDDED_MODEL_SETTINGS["findings_per_part"] == 2 and HOSTED_MODEL_SETTINGS["findings_per_part"] == 0


def _first_sentence_of_each_source(body: dict) -> str:
    firsts: dict[int, int] = {}
    for source, number, _ in numbered_sentences(_tag(_user_text(body), "sources")):
        firsts.setdefault(source, number)
    return json.dumps({"findings": [{"sentences": [k], "confidence": 0.9} for k in firsts.values()], "reasoning": "-"})


def test_a_flat_run_of_a_three_part_question_reads_on_past_its_first_three_findings(tmp_path):
    pages = statement_pages(
        "vacuum",
        "PostgreSQL routine vacuuming",
        [
            "PostgreSQL needs VACUUM to recover the disk space occupied by updated or deleted rows.",
            "The autovacuum daemon automates the execution of VACUUM and ANALYZE commands.",
            "The autovacuum_naptime setting tunes the delay between autovacuum runs on a database.",
            "VACUUM also protects against the loss of very old data due to transaction ID wraparound.",
            "Autovacuum workers check tables with many inserted, updated or deleted tuples.",
            "The autovacuum_vacuum_scale_factor setting tunes when autovacuum vacuums a table.",
        ],
    )
    scripted = ScriptedLLM(script={"extract_findings": _first_sentence_of_each_source})
    runner, snap = library_run(
        tmp_path, pages, QUESTION, scripted, provider="local", sources_per_prompt=3, engine_picks=False
    )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    evaluations = [e.message for e in result.log if e.kind == "evaluate"]
    assert any(m.startswith("continue: 3 of 6 findings wanted") for m in evaluations), evaluations
    assert len(result.sub_questions[0].findings) > 3
