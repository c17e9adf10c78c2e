"""The Review page's answers built from a checked plan."""

from __future__ import annotations

from research_core.configuration import RunConfig
from research_core.gates import ReviewApprove, parse_review_answer, plain_answer
from research_core.schemas import Plan, SubQuestion
from ui import plan_table

ROWS = [
    {"order": 1, "id": "sq_001", "question_text": "A?", "priority": 0.9, "rationale": "first", "parent_id": ""},
    {"order": 2, "id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": ""},
    {"order": 3, "id": "sq_003", "question_text": "A detail?", "priority": 0.4, "rationale": "", "parent_id": "sq_001"},
]


def test_the_approve_answer_carries_the_checked_plan_and_the_gate_reads_it_back() -> None:
    check = plan_table.check_rows(ROWS, "Q", "comparative")
    answer = check.answer
    assert isinstance(answer, ReviewApprove) and answer.plan == check.plan
    assert answer.plan.strategy == "comparative"
    assert [
        sq.model_dump(include={"id", "question_text", "priority", "rationale", "parent_id"})
        for sq in answer.plan.sub_questions
    ] == [
        {"id": "sq_001", "question_text": "A?", "priority": 0.9, "rationale": "first", "parent_id": None},
        {"id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": None},
        {"id": "sq_003", "question_text": "A detail?", "priority": 0.4, "rationale": "", "parent_id": "sq_001"},
    ]
    # what the Runner sends (the answer's JSON dump) is read by the gate as the same answer
    assert parse_review_answer(plain_answer(answer), "Q", None, RunConfig()) == answer


def test_a_refused_plan_has_no_answer() -> None:
    check = plan_table.check_rows([{**ROWS[0], "priority": None}], "Q")
    assert check.answer is None
    assert check.error == "Sub-question 1: the priority is empty; enter a number from 0 to 1."


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
