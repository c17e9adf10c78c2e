"""The gates' protocol: every answer form each gate accepts, and the message for each it refuses."""

from __future__ import annotations

import re
from typing import Any

import pytest

from research_core.configuration import RunConfig
from research_core.gates import (
    ANSWER_TYPES,
    DRILL_ANSWERS,
    GATE_KINDS,
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
    answer_schema,
    parse_answer,
    parse_drill_answer,
    parse_review_answer,
    parse_revision_answer,
    parse_step_answer,
    plain_answer,
    read_payload,
)
from research_core.planning.plan import PlanError
from research_core.schemas import Plan, SubQuestion

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


# ---- typed answers: sent as their JSON dump, read back by the same parsers ---------------------------


def round_trip(parse: Any, answer: Any) -> Any:
    """Parse `answer`, send the typed result as the Runner does, and parse what arrives."""
    typed = parse(answer)
    sent = plain_answer(typed)
    assert isinstance(sent, dict) and sent == typed.model_dump(mode="json")
    return typed, parse(sent)


@pytest.mark.parametrize("answer", ["approve", "cancel", EDITED, {**EDITED, "strategy": "comparative"}])
def test_review_typed_answers_survive_their_dump(answer: Any) -> None:
    typed, again = round_trip(review, answer)
    assert again == typed


@pytest.mark.parametrize(
    "answer",
    ["continue", "stop", {"action": "stop", "edits": [{"id": "sq2", "question_text": " B2? ", "priority": 0.8}]}],
)
def test_step_typed_answers_survive_their_dump(answer: Any) -> None:
    typed, again = round_trip(lambda a: parse_step_answer(a, BRANCHES), answer)
    assert again == typed


def test_step_a_skip_survives_its_dump() -> None:
    typed, again = round_trip(lambda a: parse_step_answer(a, BRANCHES), {"edits": [{"id": "sq3", "skip": True}]})
    assert again == typed == StepAnswer(updates={"sq3": {"status": "skipped", "stop_reason": "skipped by the user"}})


@pytest.mark.parametrize("answer", ["accept", "reject", {"action": "accept", "changes": {"drop": ["sq3"]}}])
def test_revision_typed_answers_survive_their_dump(answer: Any) -> None:
    typed, again = round_trip(lambda a: parse_revision_answer(a, PROPOSAL), answer)
    assert again == typed


@pytest.mark.parametrize("answer", ["approve", "reject", {"action": "approve", "children": [{"question_text": "X?"}]}])
def test_drill_typed_answers_survive_their_dump(answer: Any) -> None:
    typed, again = round_trip(lambda a: parse_drill_answer(a, PROPOSALS), answer)
    assert again == typed


def test_parsers_take_typed_answers_as_they_are() -> None:
    assert review(ReviewCancel()) == ReviewCancel()
    assert review(ReviewApprove()) == ReviewApprove()
    assert parse_step_answer(StepAnswer(action="stop"), BRANCHES) == StepAnswer(action="stop")
    assert parse_revision_answer(RevisionReject(), PROPOSAL) == RevisionReject()
    assert parse_revision_answer(RevisionAccept(changes=PROPOSAL), PROPOSAL) == RevisionAccept(changes=WHOLE)
    assert parse_drill_answer(DrillReject(), PROPOSALS) == DrillReject()
    assert parse_drill_answer(DrillApprove(children=[{"question_text": "X?"}]), PROPOSALS) == DrillApprove(
        children=[{"question_text": "X?", "priority": 0.5}]
    )


def test_plain_answer_dumps_typed_answers_and_passes_the_rest() -> None:
    plan = Plan(question=QUESTION, sub_questions=[SubQuestion(id="sq_001", question_text="A?", priority=0.25)])
    sent = plain_answer(ReviewApprove(plan=plan))
    assert sent["action"] == "approve" and sent["plan"]["sub_questions"][0]["priority"] == 0.25
    assert plain_answer(StepAnswer()) == {"action": "continue", "updates": {}}
    assert plain_answer("approve") == "approve"
    assert plain_answer({"action": "cancel"}) == {"action": "cancel"}
    assert plain_answer(None) is None


def test_a_typed_review_plan_is_validated_again_against_the_question_and_limits() -> None:
    plan = Plan(
        question="another question",
        strategy="comparative",
        sub_questions=[
            SubQuestion(id="sq_001", question_text="A?", priority=0.9, status="completed", iteration_count=4),
            SubQuestion(id="sq_001.1", question_text="A1?", priority=0.4, parent_id="sq_001"),
        ],
    )
    parsed = review(ReviewApprove(plan=plan))
    assert isinstance(parsed, ReviewApprove) and parsed.plan is not None
    assert parsed.plan.question == QUESTION and parsed.plan.strategy == "comparative"
    assert [(sq.id, sq.status, sq.iteration_count, sq.depth) for sq in parsed.plan.sub_questions] == [
        ("sq_001", "pending", 0, 0),
        ("sq_001.1", "pending", 0, 1),
    ]
    too_many = RunConfig(min_sub_questions=1, max_sub_questions=1)
    two = {"action": "approve", "plan": {"sub_questions": [{"question_text": "A?"}, {"question_text": "B?"}]}}
    with pytest.raises(PlanError, match="max_sub_questions"):
        parse_review_answer(two, QUESTION, None, too_many)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"action": "approve", "plan": None}, ReviewApprove()),
        ({"plan": None}, ReviewApprove()),
        ({"action": "cancel", "plan": None}, ReviewCancel()),
    ],
)
def test_a_typed_review_without_a_plan_keeps_the_proposed_one(answer: Any, expected: Any) -> None:
    assert review(answer) == expected


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"action": "approve", "plan": "sq_001"}, "'plan' must be the edited plan object, or null"),
        ({"action": "approve", "plan": {"strategy": "x"}}, "The plan must contain a 'sub_questions' list."),
        ({"action": "approve", "plan": {"sub_questions": []}}, "The plan has no sub-questions"),
        ({"action": "maybe", "plan": None}, "Unknown action 'maybe'"),
    ],
)
def test_typed_review_refusals(answer: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        review(answer)
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize(
    ("updates", "message"),
    [
        ([], "'updates' must be an object: {branch id: {question_text?, priority?, status?}}."),
        ({"sq2": {"synthesis": "made up"}}, "sq2: an update may set question_text, priority and status 'skipped'"),
        ({"sq2": "skip"}, "sq2: an update may set question_text, priority and status 'skipped'"),
        ({"sq2": {"status": "completed"}}, "sq2: an update may only set the status 'skipped', not 'completed'."),
        ({"sq1": {"priority": 0.2}}, "sq1 is completed; only pending branches can be edited."),
        ({"sq9": {}}, "sq9 does not name a branch of this run."),
        ({"sq2": {"priority": 2}}, "sq2: priority 2 is outside 0-1."),
        ({"sq2": {"question_text": " "}}, "sq2: the question text is empty."),
    ],
)
def test_typed_step_updates_pass_the_same_checks_as_edits(updates: Any, message: str) -> None:
    with pytest.raises(PlanError) as exc:
        parse_step_answer({"action": "continue", "updates": updates}, BRANCHES)
    assert str(exc.value).startswith(message)


def test_typed_step_updates_keep_the_gates_own_stop_reason() -> None:
    answer = {"updates": {"sq2": {"status": "skipped", "stop_reason": "mine"}, "sq3": {"priority": "0.1"}}}
    assert parse_step_answer(answer, BRANCHES) == StepAnswer(
        updates={"sq2": {"status": "skipped", "stop_reason": "skipped by the user"}, "sq3": {"priority": 0.1}}
    )


def test_a_step_answer_with_both_edits_and_updates_is_refused() -> None:
    answer = {"edits": [{"id": "sq2", "skip": True}], "updates": {"sq3": {"status": "skipped"}}}
    with pytest.raises(PlanError, match=re.escape("Send 'edits' or 'updates', not both.")):
        parse_step_answer(answer, BRANCHES)
    # an empty list of either is no edit at all
    assert parse_step_answer({"edits": [], "updates": {"sq3": {"priority": 0.2}}}, BRANCHES).updates == {
        "sq3": {"priority": 0.2}
    }
    assert parse_step_answer({"edits": [{"id": "sq3", "priority": 0.2}], "updates": {}}, BRANCHES).updates == {
        "sq3": {"priority": 0.2}
    }


# ---- reading payloads, and one entry point for every gate ---------------------------------------------

STEP_PAYLOAD = StepPayload(
    question="Q",
    completed=[{"id": "sq1", "question_text": "A?"}],
    pending=[{"id": "sq2", "question_text": "B?", "priority": 0.5, "status": "pending"}],
)
REVIEW_PAYLOAD = ReviewPayload(
    question=QUESTION,
    strategy="multi-faceted",
    sub_questions=[],
    estimated_iterations={},
    estimated_cost_usd=[0.0, 0.0],
    unfunded=[],
)


def test_read_payload_gives_each_gates_model() -> None:
    for payload in (
        STEP_PAYLOAD,
        REVIEW_PAYLOAD,
        RevisionPayload(question="Q", changes=PROPOSAL),
        DrillDownPayload(question="Q", branch={"id": "sq1"}, proposals=PROPOSALS),
    ):
        assert read_payload(payload.model_dump()) == payload
    assert read_payload(None) is None
    assert read_payload({}) is None
    assert read_payload({"kind": "something else"}) is None


def test_read_payload_takes_a_review_payload_from_before_unfunded_branches_were_named() -> None:
    old = REVIEW_PAYLOAD.model_dump(exclude={"unfunded", "budget_note", "answers"})
    payload = read_payload(old)
    assert isinstance(payload, ReviewPayload) and payload.unfunded == [] and payload.budget_note is None


def test_parse_answer_uses_each_gates_parser() -> None:
    assert parse_answer(REVIEW_PAYLOAD, "cancel") == ReviewCancel()
    edited = parse_answer(REVIEW_PAYLOAD, EDITED, config=CONFIG)
    assert isinstance(edited, ReviewApprove) and edited.plan is not None and edited.plan.question == QUESTION
    with pytest.raises(PlanError, match="max_sub_questions"):
        parse_answer(REVIEW_PAYLOAD, EDITED, config=RunConfig(min_sub_questions=1, max_sub_questions=1))
    revision = RevisionPayload(question="Q", changes=PROPOSAL)
    assert parse_answer(revision, "accept") == RevisionAccept(changes=WHOLE)
    drill = DrillDownPayload(question="Q", branch={"id": "sq1"}, proposals=PROPOSALS)
    assert parse_answer(drill, "reject") == DrillReject()


def test_parse_answer_checks_step_edits_against_the_payloads_branches_unless_given_the_runs() -> None:
    edit = {"edits": [{"id": "sq2", "priority": 0.9}]}
    assert parse_answer(STEP_PAYLOAD, edit) == StepAnswer(updates={"sq2": {"priority": 0.9}})
    with pytest.raises(PlanError, match=re.escape("sq1 is completed; only pending branches can be edited.")):
        parse_answer(STEP_PAYLOAD, {"edits": [{"id": "sq1", "skip": True}]})
    with pytest.raises(PlanError, match="does not name a branch"):
        parse_answer(STEP_PAYLOAD, {"edits": [{"id": "sq3", "skip": True}]})
    assert parse_answer(STEP_PAYLOAD, {"edits": [{"id": "sq3", "skip": True}]}, branches=BRANCHES).updates == {
        "sq3": {"status": "skipped", "stop_reason": "skipped by the user"}
    }


# ---- the answer schemas and help lines come from the answer models ------------------------------------


def test_every_gate_has_an_answer_schema_naming_its_actions() -> None:
    assert tuple(ANSWER_TYPES) == GATE_KINDS == ("review", "step", "revision", "drill_down")
    actions = {"review": {"approve", "cancel"}, "step": {"continue", "stop"}}
    actions |= {"revision": {"accept", "reject"}, "drill_down": {"approve", "reject"}}
    for kind in GATE_KINDS:
        text = str(answer_schema(kind))
        assert all(f"'{action}'" in text for action in actions[kind]), kind
    assert "plan" in answer_schema("review")["$defs"]["ReviewApprove"]["properties"]
    assert set(answer_schema("step")["properties"]) == {"action", "updates"}


def test_each_payloads_answers_line_names_its_models_actions() -> None:
    assert REVIEW_ANSWERS.startswith("approve | cancel | {'action': 'approve', 'plan': {'sub_questions'")
    assert STEP_ANSWERS.startswith("continue | stop | {'action': 'continue' | 'stop', 'updates'")
    assert REVISION_ANSWERS.startswith("accept | reject | {'action': 'accept'")
    assert DRILL_ANSWERS.startswith("approve | reject | {'action': 'approve', 'children'")


# ---- one shape from the edge to the node ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "answer"),
    [
        (STEP_PAYLOAD, "maybe"),
        (STEP_PAYLOAD, {"edits": [{"id": "sq2", "question_text": "\n  \n"}]}),
        (REVIEW_PAYLOAD, {"action": "approve", "sub_questions": []}),
        (DrillDownPayload(question="Q", branch={"id": "sq1"}, proposals=PROPOSALS), {"children": []}),
        (DrillDownPayload(question="Q", branch={"id": "sq1"}, proposals=PROPOSALS), "yes\nplease"),
    ],
)
def test_a_refused_answer_is_an_arbor_error_with_a_one_line_message(payload: Any, answer: Any) -> None:
    from research_core.errors import ArborError
    from research_core.gates import GateAnswerError

    with pytest.raises(ArborError) as exc:
        parse_answer(payload, answer, config=CONFIG)
    assert isinstance(exc.value, GateAnswerError)
    message = exc.value.user_message
    assert message and "\n" not in message and message == str(exc.value)


def test_a_plan_error_is_an_arbor_error_and_still_a_value_error() -> None:
    from research_core.errors import ArborError

    assert issubclass(PlanError, ArborError) and issubclass(PlanError, ValueError)
    assert PlanError("Fix row 2.").user_message == "Fix row 2."


def test_the_review_gate_checks_an_edited_plan_where_it_is_typed_and_again_at_the_node(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The page or the CLI checks an edited plan to show its refusal where it was typed; the node checks
    it again, so a typed answer built in code meets the same checks. A checked plan passes unchanged."""
    from research_core.gates import parsing
    from research_core.planning import review as review_node

    calls = []
    validate = parsing.validate_plan
    monkeypatch.setattr(parsing, "validate_plan", lambda *a, **k: calls.append(1) or validate(*a, **k))
    typed = parse_answer(REVIEW_PAYLOAD, EDITED, config=CONFIG)  # the page or the CLI
    assert len(calls) == 1
    state = {"question": QUESTION, "strategy": "multi-faceted"}
    arrived = review_node.read_review(plain_answer(typed), state, CONFIG)  # the node, after the checkpoint
    assert arrived == typed and len(calls) == 2


def test_a_typed_answer_crosses_the_checkpoint_by_one_dump_and_one_validation() -> None:
    from research_core.gates import answer_from_resume

    def never(value: Any) -> Any:
        raise AssertionError(f"{value!r} was parsed instead of validated")

    typed = [
        ("review", ReviewCancel()),
        ("step", StepAnswer(action="stop", updates={"sq2": {"status": "skipped"}})),
        ("revision", RevisionAccept(changes={"drop": ["sq3"]})),
        ("drill_down", DrillApprove(children=[{"question_text": "X?"}])),
    ]
    for kind, answer in typed:
        assert answer_from_resume(kind, plain_answer(answer), never) == answer
    # anything else (a word, an older dict) is the gate parser's to read
    assert answer_from_resume("step", "stop", lambda v: parse_step_answer(v, BRANCHES)) == StepAnswer(action="stop")
    legacy = {"action": "continue", "edits": [{"id": "sq2", "priority": 0.3}]}
    read = answer_from_resume("step", legacy, lambda v: parse_step_answer(v, BRANCHES))
    assert read == StepAnswer(updates={"sq2": {"priority": 0.3}})


def test_the_help_lines_describe_the_typed_answers() -> None:
    assert "'plan'" in REVIEW_ANSWERS and "sub_questions" in REVIEW_ANSWERS
    assert "'updates'" in STEP_ANSWERS and "edits" not in STEP_ANSWERS
    assert "'changes'" in REVISION_ANSWERS and "'children'" in DRILL_ANSWERS
