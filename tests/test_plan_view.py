"""The Review page's tree preview of an edited plan."""

from __future__ import annotations

from research_core.configuration import RunConfig
from ui import plan_table, plan_view

ROWS = [
    {"order": 1, "id": "sq_001", "question_text": "A *star*?", "priority": 0.9, "rationale": "", "parent_id": ""},
    {"order": 2, "id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": ""},
    {"order": 3, "id": "sq_003", "question_text": "A detail?", "priority": 0.4, "rationale": "", "parent_id": "sq_001"},
]


def test_tree_markdown_indents_children_and_shows_each_budget() -> None:
    check = plan_table.check_rows(ROWS, "Q")
    est = plan_table.estimate(check.plan, RunConfig(), (0.15, 0.6), (0.15, 0.6))
    lines = plan_view.tree_markdown(check, est).split("\n")
    assert lines[0] == "- **1** A \\*star\\*?  "
    assert lines[1] == f"  :gray[sq\\_001 · priority 0.90 · {est.iterations['sq_001']} iterations]"
    assert lines[2].startswith("    - **1.1** A detail?")
    assert lines[4].startswith("- **2** B?")


def test_tree_markdown_marks_unfunded_branches() -> None:
    check = plan_table.check_rows(ROWS, "Q")
    est = plan_table.Estimate({"sq_001": 3, "sq_002": 0, "sq_003": 2}, 0.0, 0.0, unfunded=["sq_002"])
    assert "sq\\_002 · priority 0.50 · unfunded]" in plan_view.tree_markdown(check, est)


def test_tree_markdown_of_a_refused_plan_is_empty() -> None:
    check = plan_table.check_rows([{**ROWS[0], "priority": None}], "Q")
    assert plan_view.tree_markdown(check, plan_table.Estimate({}, 0.0, 0.0)) == ""
