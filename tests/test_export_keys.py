"""The JSON export's keys stay what users' files and tools read (research_core/output/export.py).

The keys below are those the export had when its rows were dicts; a typed row must dump to the
same keys, in the same order for a branch row, so a file written before and after compares equal
key for key.
"""

from __future__ import annotations

import json

from research_core.output.export import to_json
from tests.test_export import make_result

TOP = {
    "config",
    "costs",
    "coverage",
    "duration_s",
    "final_answer",
    "finished_at",
    "hierarchical_synthesis",
    "log",
    "mode",
    "question",
    "run_id",
    "sources",
    "started_at",
    "status",
    "sub_questions",
    "synthesis",
    "warnings",
}
# A branch row: the SubQuestion fields in their order, then its findings.
ROW = [
    "id",
    "question_text",
    "priority",
    "rationale",
    "status",
    "depth",
    "parent_id",
    "allocated_iterations",
    "iteration_count",
    "synthesis",
    "confidence",
    "stop_reason",
    "research_done",
    "queries",
    "kind",
    "depth_assessment",
    "depth_reasoning",
    "drill_proposal",
    "drill_status",
    "backend_stats",
    "dropped_backends",
    "last_outcome",
    "citations_checked",
    "citations_supported",
    "statements_checked",
    "statements_supported",
    "hypothesis",
    "pages_read",
    "pages_failed",
    "pages_not_read",
    "shown_passages",
    "findings",
]
FINDING = {"confidence", "id", "iteration", "location", "quote", "source_ids", "sub_question_id", "text"}
SOURCE = {"backend", "id", "quotes", "read", "read_note", "relevance", "snippet", "sub_question_id", "title", "url"}
SYNTHESIS = {
    "approach",
    "citations_checked",
    "citations_supported",
    "decomposition_strategy",
    "statements_checked",
    "statements_supported",
    "sub_questions_count",
    "sub_syntheses",
    "total_findings",
    "total_iterations",
    "total_sources",
}
COSTS = {"by_branch", "by_model", "by_node", "entries", "llm_calls", "tokens_in", "tokens_out", "total_usd"}


def test_the_json_export_has_the_keys_it_always_had():
    data = json.loads(to_json(make_result()))
    assert set(data) == TOP
    assert set(data["synthesis"]) == SYNTHESIS
    assert set(data["costs"]) == COSTS
    assert all(set(s) == SOURCE for s in data["sources"])
    assert [list(row) for row in data["sub_questions"]] == [ROW] * len(data["sub_questions"])
    findings = [f for row in data["sub_questions"] for f in row["findings"]]
    assert findings and all(set(f) == FINDING for f in findings)
