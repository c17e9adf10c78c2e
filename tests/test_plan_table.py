"""The Review page's answers built from a checked plan."""

from __future__ import annotations

from research_core.schemas import Plan, SubQuestion
from ui import plan_table

ROWS = [
    {"order": 1, "id": "sq_001", "question_text": "A?", "priority": 0.9, "rationale": "first", "parent_id": ""},
    {"order": 2, "id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": ""},
    {"order": 3, "id": "sq_003", "question_text": "A detail?", "priority": 0.4, "rationale": "", "parent_id": "sq_001"},
]


def test_approve_answer_sends_the_strategy_and_the_editable_fields() -> None:
    check = plan_table.check_rows(ROWS, "Q", "comparative")
    assert check.plan is not None
    answer = plan_table.approve_answer(check.plan)
    assert answer["action"] == "approve"
    assert answer["strategy"] == "comparative"
    assert answer["sub_questions"] == [
        {"id": "sq_001", "question_text": "A?", "priority": 0.9, "rationale": "first", "parent_id": None},
        {"id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": None},
        {"id": "sq_003", "question_text": "A detail?", "priority": 0.4, "rationale": "", "parent_id": "sq_001"},
    ]


def test_proposed_children_keep_text_priority_and_rationale() -> None:
    proposal = Plan(
        question="A?",
        sub_questions=[
            SubQuestion(id="sq_001", question_text="A1?", priority=0.7, rationale="narrower", depth=1),
            SubQuestion(id="sq_002", question_text="A2?", priority=0.3),
        ],
    )
    assert plan_table.proposed_children(proposal) == [
        {"question_text": "A1?", "priority": 0.7, "rationale": "narrower"},
        {"question_text": "A2?", "priority": 0.3, "rationale": ""},
    ]
