"""The gates' protocol: every answer form each gate accepts, and the message for each it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from research_core.configuration import RunConfig
from research_core.gates import (
    DRILL_ANSWERS,
    REVIEW_ANSWERS,
    REVISION_ANSWERS,
    STEP_ANSWERS,
    DrillApprove,
    DrillDownPayload,
    DrillReject,
    ReviewApprove,
    ReviewCancel,
    ReviewPayload,
    RevisionAccept,
    RevisionPayload,
    RevisionReject,
    StepAnswer,
    StepPayload,
    parse_drill_answer,
    parse_review_answer,
    parse_revision_answer,
    parse_step_answer,
)
from research_core.planning.plan import PlanError

QUESTION = "How do heat pumps perform in cold climates?"
CONFIG = RunConfig()


def review(answer: Any) -> ReviewApprove | ReviewCancel:
    """Parse a review answer for the test question, with the run's strategy 'multi-faceted'."""
    return parse_review_answer(answer, QUESTION, "multi-faceted", CONFIG)


# ---- plan review -----------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", ["approve", " APPROVE ", {"action": "approve"}])
def test_review_approve_as_proposed(answer: Any) -> None:
    assert review(answer) == ReviewApprove(plan=None)


@pytest.mark.parametrize("answer", ["cancel", "Cancel\n", {"action": "cancel"}, {"action": "cancel", "x": 1}])
def test_review_cancel(answer: Any) -> None:
    assert review(answer) == ReviewCancel()


EDITED = {
    "sub_questions": [
        {"question_text": "What is the COP of air-source heat pumps below -15 C?", "priority": 0.9},
        {"question_text": "How do installation costs compare to gas boilers?", "priority": 0.4},
    ]
}


@pytest.mark.parametrize("answer", [EDITED, {"action": "approve", **EDITED}])
def test_review_an_edited_plan_approves_it_with_the_runs_strategy(answer: Any) -> None:
    parsed = review(answer)
    assert isinstance(parsed, ReviewApprove) and parsed.plan is not None
    assert [sq.question_text for sq in parsed.plan.sub_questions] == [
        sq["question_text"] for sq in EDITED["sub_questions"]
    ]
    assert parsed.plan.strategy == "multi-faceted"
    assert parsed.plan.question == QUESTION


def test_review_an_edited_plan_keeps_its_own_strategy() -> None:
    parsed = review({**EDITED, "strategy": "comparative"})
    assert isinstance(parsed, ReviewApprove) and parsed.plan is not None
    assert parsed.plan.strategy == "comparative"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("yes", "Unknown answer 'yes': answer 'approve', 'cancel' or an edited plan."),
        ("", "Unknown answer '': answer 'approve', 'cancel' or an edited plan."),
        ({"action": "maybe"}, "Unknown action 'maybe': use 'approve' or 'cancel'."),
        ({}, "Unknown action None: use 'approve' or 'cancel'."),
        (["approve"], "The answer must be 'approve', 'cancel' or an edited plan object."),
        (None, "The answer must be 'approve', 'cancel' or an edited plan object."),
    ],
)
def test_review_refusals(answer: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        review(answer)
    assert str(exc.value) == message


def test_review_an_invalid_edited_plan_is_refused_by_the_plan_validator() -> None:
    with pytest.raises(PlanError):
        review({"sub_questions": []})


# ---- step gate --------------------------------------------------------------------------------------

BRANCHES = {
    "sq1": {"id": "sq1", "status": "completed", "question_text": "A?", "priority": 0.5},
    "sq2": {"id": "sq2", "status": "pending", "question_text": "B?", "priority": 0.5},
    "sq3": {"id": "sq3", "status": "pending", "question_text": "C?", "priority": 0.5},
}


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("continue", "continue"),
        ("  Continue ", "continue"),
        ("stop", "stop"),
        ("STOP", "stop"),
        ({}, "continue"),
        ({"action": "continue"}, "continue"),
        ({"action": "stop"}, "stop"),
        ({"action": "continue", "edits": []}, "continue"),
        ({"action": "continue", "edits": None}, "continue"),
    ],
)
def test_step_plain_answers(answer: Any, action: str) -> None:
    assert parse_step_answer(answer, BRANCHES) == StepAnswer(action=action, updates={})


def test_step_edits_become_updates_of_pending_branches() -> None:
    answer = {
        "action": "stop",
        "edits": [
            {"id": "sq2", "question_text": "  B, narrower?\x07 ", "priority": 0.8},
            {"id": "sq3", "skip": True},
        ],
    }
    parsed = parse_step_answer(answer, BRANCHES)
    assert parsed.action == "stop"
    assert parsed.updates == {
        "sq2": {"question_text": "B, narrower?", "priority": 0.8},
        "sq3": {"status": "skipped", "stop_reason": "skipped by the user"},
    }


def test_step_edits_without_an_action_continue() -> None:
    parsed = parse_step_answer({"edits": [{"id": "sq2", "skip": False}]}, BRANCHES)
    assert parsed == StepAnswer(action="continue", updates={"sq2": {}})


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("go", "Unknown action 'go': use 'continue' or 'stop'."),
        ({"action": "approve"}, "Unknown action 'approve': use 'continue' or 'stop'."),
        (3, "Answer 'continue', 'stop', or an object with 'action' and 'edits'."),
        (["continue"], "Answer 'continue', 'stop', or an object with 'action' and 'edits'."),
        ({"edits": {"id": "sq2"}}, "'edits' must be a list of {id, question_text?, priority?, skip?}."),
        ({"edits": [{"id": "sq9"}]}, "Edit {'id': 'sq9'} does not name a branch of this run."),
        ({"edits": ["sq2"]}, "Edit 'sq2' does not name a branch of this run."),
        ({"edits": [{"id": "sq1"}]}, "sq1 is completed; only pending branches can be edited."),
        ({"edits": [{"id": "sq2", "question_text": "  "}]}, "sq2: the question text is empty."),
        ({"edits": [{"id": "sq2", "question_text": 5}]}, "sq2: the question text is empty."),
        ({"edits": [{"id": "sq2", "priority": True}]}, "sq2: priority must be a number from 0 to 1, not True."),
    ],
)
def test_step_refusals(answer: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        parse_step_answer(answer, BRANCHES)
    assert str(exc.value) == message


def test_step_a_priority_out_of_range_is_refused() -> None:
    with pytest.raises(PlanError, match="sq2"):
        parse_step_answer({"edits": [{"id": "sq2", "priority": 1.5}]}, BRANCHES)


# ---- revision gate ----------------------------------------------------------------------------------

PROPOSAL = {
    "add": [{"question_text": "D?", "priority": 0.6}],
    "drop": ["sq3"],
    "reprioritize": {"sq2": 0.9},
    "reasoning": "D matters more than C.",
}
WHOLE = {"add": PROPOSAL["add"], "drop": ["sq3"], "reprioritize": {"sq2": 0.9}}


@pytest.mark.parametrize("answer", ["accept", " ACCEPT", {"action": "accept"}])
def test_revision_accept_the_whole_proposal(answer: Any) -> None:
    assert parse_revision_answer(answer, PROPOSAL) == RevisionAccept(changes=WHOLE)


@pytest.mark.parametrize("answer", ["reject", "Reject ", {"action": "reject"}, {"action": "reject", "changes": 1}])
def test_revision_reject(answer: Any) -> None:
    assert parse_revision_answer(answer, PROPOSAL) == RevisionReject()


def test_revision_accept_part_keeps_only_what_was_proposed() -> None:
    answer = {
        "action": "accept",
        "changes": {"add": [{"question_text": "E?"}], "drop": ["sq3", "sq2"], "reprioritize": {"sq9": 0.1}},
    }
    assert parse_revision_answer(answer, PROPOSAL) == RevisionAccept(
        changes={"add": [], "drop": ["sq3"], "reprioritize": {}}
    )


def test_revision_accept_empty_changes_changes_nothing() -> None:
    parsed = parse_revision_answer({"action": "accept", "changes": {}}, PROPOSAL)
    assert parsed == RevisionAccept(changes={"add": [], "drop": [], "reprioritize": {}})


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("yes", "Answer 'accept', 'reject', or {'action': 'accept', 'changes': {...}}."),
        ({}, "Answer 'accept', 'reject', or {'action': 'accept', 'changes': {...}}."),
        ({"action": "approve"}, "Answer 'accept', 'reject', or {'action': 'accept', 'changes': {...}}."),
        (None, "Answer 'accept', 'reject', or {'action': 'accept', 'changes': {...}}."),
        ({"action": "accept", "changes": []}, "'changes' must be an object with add, drop and reprioritize."),
    ],
)
def test_revision_refusals(answer: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        parse_revision_answer(answer, PROPOSAL)
    assert str(exc.value) == message


# ---- drill-down gate --------------------------------------------------------------------------------

PROPOSALS = [{"question_text": "A1?", "priority": 0.7, "rationale": "why"}, {"question_text": "A2?"}]


@pytest.mark.parametrize("answer", ["approve", " Approve", {"action": "approve"}])
def test_drill_approve_as_proposed(answer: Any) -> None:
    assert parse_drill_answer(answer, PROPOSALS) == DrillApprove(
        children=[
            {"question_text": "A1?", "priority": 0.7, "rationale": "why"},
            {"question_text": "A2?", "priority": 0.5},
        ]
    )


@pytest.mark.parametrize("answer", ["reject", "REJECT", {"action": "reject"}, {"action": "reject", "children": 1}])
def test_drill_reject(answer: Any) -> None:
    assert parse_drill_answer(answer, PROPOSALS) == DrillReject()


def test_drill_approve_edited_children() -> None:
    answer = {"action": "approve", "children": [{"question_text": "A3?", "priority": "0.2"}]}
    assert parse_drill_answer(answer, PROPOSALS) == DrillApprove(children=[{"question_text": "A3?", "priority": 0.2}])


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("yes", "Answer 'approve', 'reject', or {'action': 'approve', 'children': [...]}."),
        ({"children": PROPOSALS}, "Answer 'approve', 'reject', or {'action': 'approve', 'children': [...]}."),
        ({"action": "accept"}, "Answer 'approve', 'reject', or {'action': 'approve', 'children': [...]}."),
        (7, "Answer 'approve', 'reject', or {'action': 'approve', 'children': [...]}."),
        ({"action": "approve", "children": []}, "'children' must be a non-empty list of {question_text, priority}."),
        ({"action": "approve", "children": {}}, "'children' must be a non-empty list of {question_text, priority}."),
        ({"action": "approve", "children": [{"question_text": " "}]}, "Child 1: the question text is empty."),
        ({"action": "approve", "children": [{"question_text": "x"}, "y"]}, "Child 2: the question text is empty."),
        (
            {"action": "approve", "children": [{"question_text": "x", "priority": False}]},
            "Child 1: priority must be a number from 0 to 1, not False.",
        ),
    ],
)
def test_drill_refusals(answer: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        parse_drill_answer(answer, PROPOSALS)
    assert str(exc.value) == message


# ---- payloads keep their JSON shape -----------------------------------------------------------------


def test_payloads_dump_to_the_dicts_the_ui_and_cli_read() -> None:
    assert StepPayload(question="Q", completed=[], pending=[]).model_dump() == {
        "kind": "step",
        "question": "Q",
        "completed": [],
        "pending": [],
        "error": None,
        "answers": STEP_ANSWERS,
    }
    assert RevisionPayload(question="Q", changes=PROPOSAL, error="e").model_dump() == {
        "kind": "revision",
        "question": "Q",
        "changes": PROPOSAL,
        "error": "e",
        "answers": REVISION_ANSWERS,
    }
    assert DrillDownPayload(question="Q", branch={"id": "sq1"}, proposals=PROPOSALS).model_dump() == {
        "kind": "drill_down",
        "question": "Q",
        "branch": {"id": "sq1"},
        "reasoning": "",
        "proposals": PROPOSALS,
        "error": None,
        "answers": DRILL_ANSWERS,
    }
    review_payload = ReviewPayload(
        question="Q",
        strategy="s",
        sub_questions=[],
        estimated_iterations={"sq1": 3},
        estimated_cost_usd=[0.01, 0.02],
        unfunded=[],
    ).model_dump()
    assert review_payload["kind"] == "review" and review_payload["answers"] == REVIEW_ANSWERS
    assert set(review_payload) == {
        "kind",
        "question",
        "strategy",
        "sub_questions",
        "estimated_iterations",
        "estimated_cost_usd",
        "unfunded",
        "budget_note",
        "error",
        "answers",
    }
