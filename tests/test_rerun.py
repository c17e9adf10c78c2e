"""The starting state of a branch re-run (research_core/runs/rerun.py).

Whole re-runs are in test_rerun_branch.py; these pin the rule: only the chosen branch is
researched again, its old drill-down goes, its ancestors are re-synthesized, everything else is
reused as it was.
"""

from __future__ import annotations

import pytest

from research_core.planning.plan import PlanError
from research_core.runs.rerun import rerun_state
from research_core.schemas import SubQuestion


def done(bid: str, parent: str | None = None, **fields) -> dict:
    return {
        "id": bid,
        "parent_id": parent,
        "question_text": f"Question {bid}?",
        "priority": 0.5,
        "status": "completed",
        "research_done": True,
        "iteration_count": 3,
        "synthesis": f"Answer of {bid}.",
        "confidence": 0.8,
        "queries": ["q"],
        "citations_checked": 2,
        **fields,
    }


OLD = {
    "run_id": "old-run",
    "question": "Compare A and B",
    "config": {"auto_approve": False, "step_mode": True, "adaptive_plan": True, "max_iterations": 20},
    "mode": "hierarchical",
    "strategy": "aspects",
    "branch_order": ["sq_001", "sq_002", "sq_002.1", "sq_002.1.1", "sq_003"],
    "branches": {
        "sq_001": done("sq_001"),
        "sq_002": done("sq_002"),
        "sq_002.1": done("sq_002.1", "sq_002"),
        "sq_002.1.1": done("sq_002.1.1", "sq_002.1"),
        "sq_003": done("sq_003", hypothesis={"statement": "B wins", "verdict": "supported", "evidence": "x"}),
    },
    "findings": [
        {"id": "f1", "sub_question_id": "sq_001", "source_ids": ["s1"]},
        {"id": "f2", "sub_question_id": "sq_002.1", "source_ids": ["s2"]},
        {"id": "f3", "sub_question_id": "sq_002.1.1", "source_ids": ["s3", "s1"]},
        {"id": "f4", "sub_question_id": "sq_003", "source_ids": ["s4"]},
    ],
    "sources": [{"id": "s1"}, {"id": "s2"}, {"id": "s3"}, {"id": "s4"}, {"id": "s5"}],
    "costs": [{"node": "x"}],
    "log": [{"node": "x", "message": "old"}],
    "warnings": ["old warning"],
    "final_answer": "Old report.",
    "status": "completed",
}


def test_only_the_chosen_branch_is_researched_again_and_the_rest_is_reused():
    state = rerun_state(OLD, "sq_002.1", question_text="  A narrower question?  ", priority="0.9")
    branches = state["branches"]
    again = branches["sq_002.1"]
    assert again.status == "pending" and again.iteration_count == 0 and again.synthesis is None
    assert again.question_text == "A narrower question?" and again.priority == 0.9
    assert "sq_002.1.1" not in branches  # its old drill-down is gone
    assert branches["sq_001"] == SubQuestion.model_validate(OLD["branches"]["sq_001"])
    assert branches["sq_003"] == SubQuestion.model_validate(OLD["branches"]["sq_003"])
    # its parent is written again from the new answer
    parent = branches["sq_002"]
    assert parent.status == "researching" and parent.research_done and parent.synthesis is None
    assert state["branch_order"] == ["sq_001", "sq_002", "sq_002.1", "sq_003"]


def test_findings_and_sources_of_the_redone_branches_are_dropped_and_the_others_kept():
    state = rerun_state(OLD, "sq_002.1")
    assert [f["id"] for f in state["findings"]] == ["f1", "f4"]
    assert [s["id"] for s in state["sources"]] == ["s1", "s4"]  # s1 stays: sq_001 still cites it
    assert "2 findings of other branches reused" in state["log"][0]["message"]


def test_the_re_run_goes_straight_through_and_starts_a_fresh_report():
    state = rerun_state(OLD, "sq_001")
    assert state["config"] == {"auto_approve": True, "step_mode": False, "adaptive_plan": False, "max_iterations": 20}
    assert OLD["config"]["step_mode"] is True  # the old run's state is untouched
    assert state["costs"] == [] and state["warnings"] == [] and state["final_answer"] is None
    assert state["status"] is None and state["coverage"] is None
    assert state["acknowledged"] == state["revised_after"] == ["sq_002", "sq_002.1", "sq_002.1.1", "sq_003"]


def test_a_re_researched_hypothesis_is_judged_again():
    state = rerun_state(OLD, "sq_003")
    assert state["branches"]["sq_003"].hypothesis == {
        "statement": "B wins",
        "verdict": None,
        "evidence": None,
        "confidence": None,
        "pivot": None,
    }


@pytest.mark.parametrize(
    ("branch_id", "edits", "message"),
    [
        ("sq_009", {}, "'sq_009' is not a branch of this run; choose one of sq_001, sq_002"),
        ("sq_001", {"question_text": "   "}, "sq_001: the question text is empty."),
        ("sq_001", {"priority": 2}, "sq_001: priority 2 is outside 0-1."),
        ("sq_001", {"priority": True}, "sq_001: priority must be a number from 0 to 1"),
    ],
)
def test_a_bad_choice_is_refused_with_a_reason(branch_id, edits, message):
    with pytest.raises(PlanError) as caught:
        rerun_state(OLD, branch_id, **edits)
    assert message in str(caught.value)
