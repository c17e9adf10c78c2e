"""The rules that turn an edited gate table into the gate's answer, and the revision gate's summary."""

from __future__ import annotations

import math

from ui.gate_views import (
    drill_children_answer,
    drill_proposals,
    drill_rows,
    revision_lines,
    step_edits,
    step_rows,
)

PENDING = [
    {"id": "sq_002", "question_text": "Costs", "priority": 0.6},
    {"id": "sq_003", "question_text": "Tooling", "priority": None},
]


def test_step_rows_start_unskipped_with_numeric_priorities() -> None:
    rows = step_rows(PENDING).to_dict("records")
    assert rows == [
        {"id": "sq_002", "question_text": "Costs", "priority": 0.6, "skip": False},
        {"id": "sq_003", "question_text": "Tooling", "priority": 0.0, "skip": False},
    ]


def test_an_unchanged_step_table_sends_no_edits() -> None:
    rows = step_rows(PENDING).to_dict("records")
    assert step_edits(rows, rows) == ([], None)


def test_step_edits_carry_only_what_changed() -> None:
    before = step_rows(PENDING).to_dict("records")
    after = [
        {**before[0], "question_text": "  Running costs ", "priority": 0.6 + 1e-12},
        {**before[1], "priority": 0.9, "skip": True},
    ]
    edits, problem = step_edits(before, after)
    assert problem is None
    assert edits == [
        {"id": "sq_002", "question_text": "Running costs"},
        {"id": "sq_003", "priority": 0.9, "skip": True},
    ]


def test_step_edits_name_the_last_problem_and_leave_the_bad_value_out() -> None:
    before = step_rows(PENDING).to_dict("records")
    after = [{**before[0], "question_text": "  "}, {**before[1], "priority": math.nan}]
    edits, problem = step_edits(before, after)
    assert problem == "sq_003: the priority must be a number from 0 to 1."
    assert edits == []
    _, problem = step_edits(before[:1], [{**before[0], "question_text": ""}])
    assert problem == "sq_002: the question text is empty."
    _, problem = step_edits(before[:1], [{**before[0], "priority": 1.5}])
    assert problem == "sq_002: the priority must be a number from 0 to 1."


PROPOSALS = [
    {"question_text": "SQLite write concurrency", "priority": 0.8, "rationale": "thin evidence"},
    {"question_text": "PostgreSQL hosting cost", "priority": None},
    "not a proposal",
]


def test_drill_proposals_keep_only_dicts_and_rows_default_the_priority() -> None:
    proposals = drill_proposals({"proposals": PROPOSALS})
    assert len(proposals) == 2
    assert drill_rows(proposals).to_dict("records") == [
        {"question_text": "SQLite write concurrency", "priority": 0.8, "remove": False},
        {"question_text": "PostgreSQL hosting cost", "priority": 0.5, "remove": False},
    ]
    assert list(drill_rows([]).columns) == ["question_text", "priority", "remove"]


def test_unchanged_children_approve_as_proposed() -> None:
    proposals = drill_proposals({"proposals": PROPOSALS})
    rows = drill_rows(proposals).to_dict("records")
    assert drill_children_answer(proposals, rows, rows) == (None, True, None)


def test_edited_children_are_sent_with_the_models_rationale() -> None:
    proposals = drill_proposals({"proposals": PROPOSALS})
    before = drill_rows(proposals).to_dict("records")
    after = [{**before[0], "question_text": "SQLite   writers\nat once"}, {**before[1], "remove": True}]
    children, kept, problem = drill_children_answer(proposals, before, after)
    assert (kept, problem) == (True, None)
    assert children == [{"question_text": "SQLite writers at once", "priority": 0.8, "rationale": "thin evidence"}]


def test_removing_every_child_keeps_none() -> None:
    proposals = drill_proposals({"proposals": PROPOSALS})
    before = drill_rows(proposals).to_dict("records")
    after = [{**row, "remove": True} for row in before]
    assert drill_children_answer(proposals, before, after) == ([], False, None)


def test_a_bad_child_is_a_problem_and_is_not_sent() -> None:
    proposals = drill_proposals({"proposals": PROPOSALS})
    before = drill_rows(proposals).to_dict("records")
    children, kept, problem = drill_children_answer(proposals, before, [{**before[0], "question_text": " "}, before[1]])
    assert problem == "Question 1: the text is empty. Type a question or tick *remove*."
    assert kept is True and children is None
    _, _, problem = drill_children_answer(proposals, before, [before[0], {**before[1], "priority": -0.1}])
    assert problem == "Question 2: the priority must be a number from 0 to 1."


BRANCHES = [
    {"id": "sq_001", "question_text": "Performance", "priority": 0.7, "parent_id": None},
    {"id": "sq_002", "question_text": "Costs *bold*", "priority": 0.4, "parent_id": None},
]


def test_revision_lines_list_additions_drops_and_priorities() -> None:
    changes = {
        "add": [{"question_text": "Licensing", "priority": 0.3, "rationale": "missing"}, "Backups", {"question": "Q"}],
        "drop": ["sq_002", "sq_404"],
        "reprioritize": {"sq_001": 0.9, "sq_999": 0.2},
    }
    assert revision_lines(changes, BRANCHES) == [
        "- :green[add] Licensing :gray[priority 0.30]  \n  :gray[missing]",
        "- :green[add] Backups",
        "- :green[add] Q :gray[priority 0.50]",
        "- :red[drop] 2 · Costs \\*bold\\*",
        "- :red[drop] sq\\_404",
        "- :orange[priority] 1 · Performance: 0.70 → 0.90",
        "- :orange[priority] sq\\_999: 0.20",
    ]
    assert revision_lines({}, BRANCHES) == []
