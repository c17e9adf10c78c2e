"""A drill-down draws only on what the approved branches' minimums leave: it never leaves one unresearched."""

from __future__ import annotations

from research_core.configuration import build_run_config
from research_core.coordination.caps import drill_down_children_room, drill_down_room, minimum_owed_to_approved
from research_core.coordination.scheduling import fund_drill_downs, is_drill_down_child, schedule_steps
from research_core.research.depth import can_drill_down
from research_core.schemas import SubQuestion


def _branch(bid: str, priority: float, status: str, used: int, allocated: int = 5) -> SubQuestion:
    return SubQuestion(
        id=bid,
        question_text=f"Question {bid}?",
        priority=priority,
        status=status,
        iteration_count=used,
        allocated_iterations=allocated,
    )


def test_a_branch_may_not_drill_down_into_the_iterations_an_approved_branch_still_needs():
    # the chain of sq_002 started with 12 iterations left of the run's 15; it has spent 4, and sq_001,
    # running beside it, 5: the 0.7 branch has not started
    config = build_run_config("general", auto_approve=True)
    branches = {
        "sq_001": _branch("sq_001", 0.9, "researching", 5),
        "sq_002": _branch("sq_002", 0.8, "researching", 4),
        "sq_003": _branch("sq_003", 0.7, "pending", 0),
    }
    room = drill_down_room(config, branches, "sq_002")
    # ceiling with a child counted: 20 - (1 + 4 + 1) = 14; spent 9; sq_003 is owed its minimum of 2
    assert room == 14 - 9 - 2
    assert not can_drill_down(branches["sq_002"], config, len(branches), room - 1)
    # once the 0.7 branch has had its minimum, what is left may go to a drill-down
    branches["sq_003"] = _branch("sq_003", 0.7, "completed", 2)
    branches["sq_001"] = _branch("sq_001", 0.9, "completed", 2)
    assert drill_down_room(config, branches, "sq_002") == 14 - 8
    assert can_drill_down(branches["sq_002"], config, len(branches), 14 - 8 - 1)


def _drilled(branches: dict, parent: str, child: str, used: int = 0) -> None:
    branches[parent] = branches[parent].model_copy(update={"drill_status": "approved"})
    branches[child] = _branch(child, 0.8, "pending", used, allocated=4).model_copy(
        update={"parent_id": parent, "depth": 1}
    )


def test_drill_down_children_research_only_with_what_the_approved_minimums_leave():
    config = build_run_config("general", auto_approve=True)
    branches = {
        "sq_001": _branch("sq_001", 0.9, "researching", 5).model_copy(update={"research_done": True}),
        "sq_002": _branch("sq_002", 0.8, "researching", 5).model_copy(update={"research_done": True}),
        "sq_003": _branch("sq_003", 0.7, "pending", 0, allocated=4),
    }
    _drilled(branches, "sq_001", "sq_001.1")
    _drilled(branches, "sq_002", "sq_002.1")
    assert is_drill_down_child(branches, "sq_001.1") and not is_drill_down_child(branches, "sq_003")
    # only sq_003 is owed its minimum: the parents' research is done, and children are not approved branches
    assert minimum_owed_to_approved(config, branches) == 2
    assert drill_down_children_room(config, branches, 3) == 1
    # the scheduler gives the one iteration to the first child; the second waits and sq_003 takes the slot
    plan = schedule_steps(branches, list(branches), {}, 2, drill_down_room=1)
    assert plan.research == ["sq_001.1", "sq_003"] and plan.limits == {"sq_001.1": 1}
    started, limits = fund_drill_downs(branches, ["sq_001.1", "sq_002.1", "sq_003"], None)
    assert started == ["sq_001.1", "sq_002.1", "sq_003"] and limits == {}
