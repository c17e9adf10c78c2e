"""Iterations a finished branch left unused go to the approved branches starting after it (`surplus.py`)."""

from __future__ import annotations

from research_core.coordination.coordinate import coordinate
from research_core.coordination.surplus import share_surplus, surplus_iterations
from tests.coordination_support import make_pass
from tests.test_coordinate import branch, runtime, state

# 12 iterations, three branches: the run's ceiling is 7, allocated 3, 2 and 2.
FIRST_DONE_EARLY = {
    "sq_001": {"allocated_iterations": 3, "iteration_count": 2, "research_done": True, "status": "completed"},
    "sq_002": {"allocated_iterations": 2, "iteration_count": 2, "research_done": True, "status": "completed"},
    "sq_003": {"allocated_iterations": 2, "status": "pending"},
}


def test_a_branch_starting_after_one_that_stopped_early_takes_its_unused_iteration() -> None:
    p = make_pass(FIRST_DONE_EARLY, max_iterations=12, sub_question_max_iterations=12)
    share_surplus(p, iterations_left=3, starting=["sq_003"])
    assert p.branches["sq_003"].allocated_iterations == 3
    assert p.updates["sq_003"] == {"allocated_iterations": 3}
    assert "sq_003 takes 1 iteration(s)" in p.log[0]["message"]


def test_nothing_moves_while_other_branches_still_need_their_own_allocations() -> None:
    researching = {
        **FIRST_DONE_EARLY,
        "sq_002": {"allocated_iterations": 2, "iteration_count": 1, "status": "researching"},
    }
    p = make_pass(researching, max_iterations=12, sub_question_max_iterations=12)
    # 4 left: sq_002 still has 1 of its own, sq_003 its 2, and sq_001 left 1 unused
    assert surplus_iterations(p, 4) == 1
    assert surplus_iterations(p, 3) == 0
    share_surplus(p, iterations_left=3, starting=["sq_003"])
    assert p.branches["sq_003"].allocated_iterations == 2 and not p.updates


def test_the_per_branch_maximum_and_a_branch_already_researching_are_left_as_they_are() -> None:
    p = make_pass(FIRST_DONE_EARLY, max_iterations=12, sub_question_max_iterations=2)
    share_surplus(p, iterations_left=3, starting=["sq_003"])
    assert p.branches["sq_003"].allocated_iterations == 2
    started = {**FIRST_DONE_EARLY, "sq_003": {"allocated_iterations": 2, "iteration_count": 1, "status": "researching"}}
    p = make_pass(started, max_iterations=12, sub_question_max_iterations=12)
    share_surplus(p, iterations_left=2, starting=["sq_003"])
    assert p.branches["sq_003"].allocated_iterations == 2


def test_the_chain_of_the_last_branch_may_run_the_iterations_the_first_left() -> None:
    branches = {
        "sq_001": branch(
            "sq_001", 0.9, allocated_iterations=3, iteration_count=2, research_done=True, status="completed"
        ),
        "sq_002": branch(
            "sq_002", 0.8, allocated_iterations=2, iteration_count=2, research_done=True, status="completed"
        ),
        "sq_003": branch("sq_003", 0.7, allocated_iterations=2),
    }
    update = coordinate_update(branches)
    chains = [t for t in update["next_tasks"] if t.node == "research_chain"]
    assert [(t.branch.id, t.max_steps, t.branch.allocated_iterations) for t in chains] == [("sq_003", 3, 3)]
    assert update["branches"]["sq_003"]["allocated_iterations"] == 3


def coordinate_update(branches: dict) -> dict:
    return coordinate(
        state(branches),
        runtime(parallel=2, adaptive_plan=False, max_depth=1, max_iterations=12, sub_question_max_iterations=12),
    )
