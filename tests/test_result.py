"""The exportable result of a run, as the report and the exports show it (research_core/runs/result.py)."""

from __future__ import annotations

from research_core.runs.result import build_result, numbered_sources, report_statements

A, B, C, D = "aaaa", "bbbb", "cccc", "dddd"  # source ids


def branch(bid: str, synthesis: str | None, parent: str | None = None, **fields) -> dict:
    base = {
        "id": bid,
        "question_text": f"Question {bid}?",
        "priority": 0.5,
        "parent_id": parent,
        "status": "completed",
        "synthesis": synthesis,
        "confidence": 0.8,
        "iteration_count": 2,
        "citations_checked": 2,
        "citations_supported": 1,
        "statements_checked": 3,
        "statements_supported": 2,
    }
    return {**base, **fields}


def source(sid: str) -> dict:
    return {"id": sid, "url": f"https://example.org/{sid}", "title": sid, "backend": "ddg"}


STATE = {
    "question": "Why is the sky blue?",
    "mode": "hierarchical",
    "strategy": "aspects",
    # the drill-down child was added after sq_002, but the report lists it right under its parent
    "branch_order": ["sq_001", "sq_002", "sq_001.1"],
    "branches": {
        "sq_002": branch("sq_002", f"Second [[src:{C}]] and [[src:{A}]]."),
        "sq_001": branch("sq_001", f"First [[src:{B}]][[src:{A}]]."),
        "sq_001.1": branch("sq_001.1", f"Deeper [[src:{A}]].", parent="sq_001", iteration_count=1),
    },
    "findings": [
        {"id": "f1", "sub_question_id": "sq_001", "text": "One.", "confidence": 0.8, "source_ids": [B]},
        {"id": "f2", "sub_question_id": "sq_002", "text": "Two.", "confidence": 0.8, "source_ids": [C]},
        {"id": "f3", "sub_question_id": "sq_001", "text": "Three.", "confidence": 0.8, "source_ids": [A]},
    ],
    "sources": [source(A), source(B), source(C), source(D), source(A)],
    "report_grounding": {"statements": 10, "supported": 9},
    "final_answer": "The sky is blue [1].",
    "warnings": ["slow search", "slow search", "one branch failed"],
    "log": [{"node": "classify", "message": "complex"}],
}


def build(state: dict) -> object:
    return build_result(
        "run-1",
        state,
        started_at="2025-01-01T00:00:00+00:00",
        finished_at="2025-01-01T00:10:00+00:00",
        duration_s=61.23456,
    )


def test_citations_are_numbered_in_report_order_and_cited_sources_come_first():
    numbering, sources = numbered_sources(STATE)
    assert numbering == {B: 1, A: 2, C: 3}  # sq_001, then its child, then sq_002 (tree order)
    assert [s.id for s in sources] == [B, A, C, D]  # the uncited source last, the duplicate once


def test_branch_answers_show_the_global_numbers_in_tree_order_with_their_findings():
    result = build(STATE)
    assert [b.id for b in result.sub_questions] == ["sq_001", "sq_001.1", "sq_002"]
    texts = {b.id: b.synthesis for b in result.sub_questions}
    assert texts == {"sq_001": "First [1][2].", "sq_001.1": "Deeper [2].", "sq_002": "Second [3] and [2]."}
    assert [f.id for f in result.sub_questions[0].findings] == ["f1", "f3"]
    assert result.sub_questions[1].findings == []
    assert STATE["branches"]["sq_001"]["synthesis"].startswith("First [[src:")  # the run's state is untouched


def test_the_summary_counts_research_syntheses_and_the_report():
    result = build(STATE)
    s = result.synthesis
    assert s.approach == "hierarchical" and s.decomposition_strategy == "aspects" and s.sub_questions_count == 3
    assert s.total_iterations == (2 + 2 + 1) + 3 + 2  # research, one synthesis per branch, plan and report
    assert (s.total_findings, s.total_sources) == (3, 4)
    assert (s.citations_checked, s.citations_supported) == (6, 3)
    assert (s.statements_checked, s.statements_supported) == (10, 9)  # the written report's own check
    assert [x.id for x in s.sub_syntheses] == ["sq_001", "sq_001.1", "sq_002"]
    assert result.hierarchical_synthesis == result.final_answer == "The sky is blue [1]."
    assert result.warnings == ["slow search", "one branch failed"]
    assert result.status == "completed" and result.duration_s == 61.235


def test_a_flat_run_reports_its_branch_answer_statements_and_no_decomposition():
    flat = {
        **STATE,
        "mode": "flat",
        "branch_order": ["sq_001"],
        "branches": {"sq_001": branch("sq_001", f"Answer [[src:{A}]].", iteration_count=4)},
    }
    result = build(flat)
    s = result.synthesis
    assert s.approach == "flat" and s.decomposition_strategy is None and s.sub_questions_count == 0
    assert s.total_iterations == 4 + 1  # no plan, no meta-synthesis
    assert (s.statements_checked, s.statements_supported) == (3, 2)  # its branch answer is the report
    assert result.hierarchical_synthesis is None and result.mode == "flat"


def test_a_report_made_of_branch_answers_counts_only_the_completed_ones():
    fallback = {**STATE, "report_grounding": None}
    fallback["branches"] = {**STATE["branches"], "sq_002": branch("sq_002", None, status="failed")}
    assert report_statements(fallback) == {"statements_checked": 6, "statements_supported": 4}
