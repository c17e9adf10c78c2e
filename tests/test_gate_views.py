"""The rules that turn an edited gate table into the gate's answer, and the revision gate's summary."""

from __future__ import annotations

import math

from research_core.gates import (
    DrillApprove,
    DrillDownPayload,
    RevisionAccept,
    RevisionPayload,
    StepAnswer,
    StepPayload,
)
from research_core.runs.rows import BranchRow
from ui.gate_views import (
    drill_children_answer,
    drill_proposals,
    drill_rows,
    gate_answer,
    revision_lines,
    step_edits,
    step_rows,
)

PENDING = [
    {"id": "sq_002", "question_text": "Costs", "priority": 0.6, "status": "pending"},
    {"id": "sq_003", "question_text": "Tooling", "priority": None, "status": "pending"},
]
STEP = StepPayload(question="Q", completed=[{"id": "sq_001", "question_text": "Speed"}], pending=PENDING)
RUN_BRANCHES = [
    BranchRow(id="sq_001", question_text="Speed", priority=0.5, status="completed"),
    BranchRow(id="sq_002", question_text="Costs", priority=0.6),
    BranchRow(id="sq_003", question_text="Tooling", priority=0.5),
]


def step_answer(edits: list) -> tuple:
    return gate_answer(STEP, {"action": "continue", "edits": edits}, RUN_BRANCHES)


def test_step_rows_start_unskipped_with_numeric_priorities() -> None:
    rows = step_rows(PENDING).to_dict("records")
    assert rows == [
        {"id": "sq_002", "question_text": "Costs", "priority": 0.6, "skip": False},
        {"id": "sq_003", "question_text": "Tooling", "priority": 0.0, "skip": False},
    ]


def test_an_unchanged_step_table_sends_no_edits() -> None:
    rows = step_rows(PENDING).to_dict("records")
    assert step_edits(rows, rows) == []
    assert step_answer([]) == (StepAnswer(action="continue"), None)


def test_step_edits_carry_only_what_changed() -> None:
    before = step_rows(PENDING).to_dict("records")
    after = [
        {**before[0], "question_text": "  Running costs ", "priority": 0.6 + 1e-12},
        {**before[1], "priority": 0.9, "skip": True},
    ]
    edits = step_edits(before, after)
    assert edits == [
        {"id": "sq_002", "question_text": "Running costs"},
        {"id": "sq_003", "priority": 0.9, "skip": True},
    ]
    assert step_answer(edits) == (
        StepAnswer(
            updates={
                "sq_002": {"question_text": "Running costs"},
                "sq_003": {"priority": 0.9, "status": "skipped", "stop_reason": "skipped by the user"},
            }
        ),
        None,
    )


def test_a_bad_step_edit_gets_the_gates_refusal_and_no_answer() -> None:
    before = step_rows(PENDING).to_dict("records")
    edits = step_edits(before, [{**before[0], "question_text": "  "}, {**before[1], "priority": math.nan}])
    assert edits == [{"id": "sq_002", "question_text": ""}, {"id": "sq_003", "priority": None}]
    assert step_answer(edits) == (None, "sq_002: the question text is empty.")
    assert step_answer(edits[1:]) == (None, "sq_003: the priority is empty; enter a number from 0 to 1.")
    edits = step_edits(before[:1], [{**before[0], "priority": 1.5}])
    assert step_answer(edits) == (None, "sq_002: priority 1.5 is outside 0-1.")


def test_a_step_edit_of_a_branch_no_longer_pending_is_refused() -> None:
    answer, problem = gate_answer(STEP, {"edits": [{"id": "sq_001", "skip": True}]}, RUN_BRANCHES)
    assert answer is None and problem == "sq_001 is completed; only pending branches can be edited."


PROPOSALS = [
    {"question_text": "SQLite write concurrency", "priority": 0.8, "rationale": "thin evidence"},
    {"question_text": "PostgreSQL hosting cost", "priority": None},
    "not a proposal",
]
DRILL = DrillDownPayload(question="Q", branch={"id": "sq_001"}, proposals=PROPOSALS)


def test_drill_proposals_keep_only_dicts_and_rows_default_the_priority() -> None:
    proposals = drill_proposals(DRILL)
    assert len(proposals) == 2
    assert drill_rows(proposals).to_dict("records") == [
        {"question_text": "SQLite write concurrency", "priority": 0.8, "remove": False},
        {"question_text": "PostgreSQL hosting cost", "priority": 0.5, "remove": False},
    ]
    assert list(drill_rows([]).columns) == ["question_text", "priority", "remove"]


def test_unchanged_children_approve_the_proposals_as_the_table_shows_them() -> None:
    proposals = drill_proposals(DRILL)
    rows = drill_rows(proposals).to_dict("records")
    children = drill_children_answer(proposals, rows)
    assert children == [
        {"question_text": "SQLite write concurrency", "priority": 0.8, "rationale": "thin evidence"},
        {"question_text": "PostgreSQL hosting cost", "priority": 0.5},
    ]
    assert gate_answer(DRILL, DrillApprove(children=children), []) == (DrillApprove(children=children), None)


def test_edited_children_are_sent_with_the_models_rationale() -> None:
    proposals = drill_proposals(DRILL)
    before = drill_rows(proposals).to_dict("records")
    after = [{**before[0], "question_text": "SQLite   writers\nat once"}, {**before[1], "remove": True}]
    children = drill_children_answer(proposals, after)
    assert children == [{"question_text": "SQLite writers at once", "priority": 0.8, "rationale": "thin evidence"}]
    assert gate_answer(DRILL, DrillApprove(children=children), []) == (DrillApprove(children=children), None)


def test_removing_every_child_keeps_none() -> None:
    proposals = drill_proposals(DRILL)
    rows = [{**row, "remove": True} for row in drill_rows(proposals).to_dict("records")]
    assert drill_children_answer(proposals, rows) == []


def test_a_bad_child_gets_the_gates_refusal_and_no_answer() -> None:
    proposals = drill_proposals(DRILL)
    before = drill_rows(proposals).to_dict("records")
    children = drill_children_answer(proposals, [{**before[0], "question_text": " "}, before[1]])
    # what the page sends: a typed DrillApprove refuses such children when it is built
    assert gate_answer(DRILL, {"action": "approve", "children": children}, []) == (
        None,
        "Child 1: the question text is empty.",
    )
    children = drill_children_answer(proposals, [before[0], {**before[1], "priority": -0.1}])
    assert gate_answer(DRILL, {"action": "approve", "children": children}, []) == (
        None,
        "Child 2: priority -0.1 is outside 0-1.",
    )
    children = drill_children_answer(proposals, [before[0], {**before[1], "priority": math.nan}])
    assert gate_answer(DRILL, {"action": "approve", "children": children}, []) == (
        None,
        "Child 2: the priority is empty; enter a number from 0 to 1.",
    )


def test_accepting_a_revision_sends_only_what_was_proposed() -> None:
    changes = {"add": ["Licensing"], "drop": ["sq_002"], "reprioritize": {}, "reasoning": "why"}
    revision = RevisionPayload(question="Q", changes=changes)
    assert gate_answer(revision, RevisionAccept(changes=changes), []) == (
        RevisionAccept(changes={"add": ["Licensing"], "drop": ["sq_002"], "reprioritize": {}}),
        None,
    )


BRANCHES = [
    BranchRow(id="sq_001", question_text="Performance", priority=0.7),
    BranchRow(id="sq_002", question_text="Costs *bold*", priority=0.4),
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
