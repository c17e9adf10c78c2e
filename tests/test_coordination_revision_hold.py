"""The hold for a plan revision (`coordination/revision_hold.py`): when the reviser is asked, and what waits."""

from __future__ import annotations

from typing import Any

from research_core.coordination.revision_hold import hold_for_revision, revision_due
from tests.coordination_support import make_pass, records

BRANCHES = {"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}}


def due(newly: list[str], *, exhausted: bool = False, stop: bool = False, branches: Any = None, **setup: Any) -> bool:
    state = {
        "mode": setup.pop("mode", "hierarchical"),
        "revisions_done": setup.pop("revisions_done", 0),
        "question": setup.pop("question", ""),
    }
    p = make_pass({b: dict(v) for b, v in (branches or BRANCHES).items()}, stop=stop, **setup)
    return revision_due(state, p, newly, exhausted)  # type: ignore[arg-type]


def test_the_reviser_is_asked_after_a_branch_completes_in_hierarchical_mode() -> None:
    assert due(["sq1"])
    assert not due([])  # nothing new completed
    assert not due(["sq1"], mode="hypothesis")
    assert not due(["sq1"], adaptive_plan=False)


def test_no_revision_once_stopped_capped_or_out_of_revisions() -> None:
    assert not due(["sq1"], stop=True)
    assert not due(["sq1"], exhausted=True)
    assert not due(["sq1"], revisions_done=2, max_revisions=2)
    assert due(["sq1"], revisions_done=1, max_revisions=2)


def test_a_revision_needs_a_pending_branch_or_room_for_more() -> None:
    question = "What isolation levels does PostgreSQL offer, and how does SQLite lock its database file?"
    done = {
        "sq1": {"id": "sq1", "status": "completed", "question_text": "What isolation levels does PostgreSQL offer?"},
        "sq2": {"id": "sq2", "status": "completed", "question_text": "How is PostgreSQL configured?"},
    }
    assert not due(["sq1"], branches=done, max_total_sub_questions=2, question=question)
    assert due(["sq1"], branches=done, max_total_sub_questions=3, question=question)  # SQLite locking: no branch
    assert due(["sq1"], max_total_sub_questions=2)  # sq2 is still pending


def test_no_revision_in_auto_mode_once_nothing_is_pending_and_every_part_has_a_branch() -> None:
    """With nothing pending an auto-mode reviser can only add branches; when every clause of the
    question has a branch, the call could change nothing, so it is not made."""
    question = "What isolation levels does PostgreSQL offer, and how does SQLite lock its database file?"
    done = {
        "sq1": {"id": "sq1", "status": "completed", "question_text": "What isolation levels does PostgreSQL offer?"},
        "sq2": {"id": "sq2", "status": "completed", "question_text": "How does SQLite lock its database file?"},
    }
    assert not due(["sq2"], branches=done, max_total_sub_questions=8, question=question)
    assert due(["sq2"], branches=done, max_total_sub_questions=8, question=question, step_mode=True)


def test_with_the_embedded_model_no_revision_in_auto_mode_while_every_part_has_a_branch() -> None:
    """A pending branch is not reason enough to ask a small CPU model for a revision: it could only
    re-order branches that all run anyway. A part of the question without a branch still is."""
    question = "What isolation levels does PostgreSQL offer, and how does SQLite lock its database file?"
    plan = {
        "sq1": {"id": "sq1", "status": "completed", "question_text": "What isolation levels does PostgreSQL offer?"},
        "sq2": {"id": "sq2", "status": "pending", "question_text": "How does SQLite lock its database file?"},
    }
    assert due(["sq1"], branches=plan, question=question)  # a hosted model is still asked
    assert not due(["sq1"], branches=plan, question=question, revise_while_pending=False)
    assert due(["sq1"], branches=plan, question=question, revise_while_pending=False, step_mode=True)
    partial = {"sq1": plan["sq1"], "sq2": {**plan["sq2"], "question_text": "How is PostgreSQL configured?"}}
    assert due(["sq1"], branches=partial, question=question, revise_while_pending=False)  # SQLite locking: none


def test_outside_hierarchical_mode_nothing_is_held_for_a_revision() -> None:
    branches = {"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}}
    state: Any = {"mode": "flat", "branches": records(branches), "revised_after": [], "question": "Q", "config": {}}
    p = make_pass({b: dict(v) for b, v in branches.items()})
    research_ids, task = hold_for_revision(state, p, ["sq2"], exhausted=False)
    assert research_ids == ["sq2"] and task is None
    assert p.extra["revised_after"] == ["sq1"]


def test_after_a_branch_completes_the_pending_research_waits_for_the_reviser() -> None:
    branches = {
        "sq1": {"id": "sq1", "status": "completed"},
        "sq2": {"id": "sq2", "status": "pending"},
        "sq3": {"id": "sq3", "status": "researching"},
    }
    state: Any = {
        "mode": "hierarchical",
        "branches": records(branches),
        "question": "Q",
        "config": {},
        "revisions_done": 1,
    }
    p = make_pass({b: dict(v) for b, v in branches.items()})
    p.branches["sq2"] = p.branches["sq2"].model_copy(update={"status": "researching"})  # the scheduler starts it
    research_ids, task = hold_for_revision(state, p, ["sq2", "sq3"], exhausted=False)
    assert research_ids == ["sq3"]
    assert p.updates == {"sq2": {"status": "pending"}}
    assert task is not None and task.node == "revise_plan"
    assert task.finished == ["sq1"] and task.revisions_done == 1


def test_no_revision_once_the_cost_cap_is_reached() -> None:
    branches = {"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}}
    state: Any = {"mode": "hierarchical", "branches": records(branches), "question": "Q", "config": {}}
    p = make_pass({b: dict(v) for b, v in branches.items()})
    research_ids, task = hold_for_revision(state, p, ["sq2"], exhausted=True)
    assert research_ids == ["sq2"] and task is None
