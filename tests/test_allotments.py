"""Chain allotments: how many steps and dollars each chain starting now may use."""

from __future__ import annotations

import pytest

from research_core.coordination.allotments import chain_allotments, segment_length
from research_core.schemas import SubQuestion


@pytest.mark.parametrize(
    ("left", "run_left", "dollars", "segment", "single", "expected"),
    [
        # the allocations fit in the run's remaining iterations: each chain may use all of its own
        ({"a": 5, "b": 4, "c": 2, "d": 1}, 12, 1.0, None, False, {"a": 5, "b": 4, "c": 2, "d": 1}),
        # they do not: shared out smallest need first, the higher priority gets the remainder
        ({"a": 3, "b": 3}, 5, 1.0, None, False, {"a": 3, "b": 2}),
        ({"a": 6, "b": 1}, 5, 1.0, None, False, {"a": 4, "b": 1}),
        # at least one step each, even past the run's cap (research was allowed to start)
        ({"a": 3, "b": 3, "c": 3}, 1, 0.3, None, False, {"a": 1, "b": 1, "c": 1}),
        ({"a": 7}, 7, -1.0, None, False, {"a": 7}),
        ({"a": 4, "b": 4}, 10, 1.0, 2, False, {"a": 2, "b": 2}),
        ({"a": 4, "b": 4}, 10, 1.0, None, True, {"a": 1, "b": 1}),
        ({}, 10, 1.0, None, False, {}),
    ],
)
def test_chain_allotments_split_the_remaining_caps(left, run_left, dollars, segment, single, expected):
    got = chain_allotments(left, run_left, dollars, segment=segment, single_step=single)
    share = max(0.0, dollars) / len(left) if left else 0.0
    assert {k: n for k, (n, _) in got.items()} == expected
    assert all(c == pytest.approx(share) for _, c in got.values())


def branches(*fields: dict) -> list[SubQuestion]:
    return [SubQuestion(id=f"sq_{n}", question_text="Q?", priority=0.5, **f) for n, f in enumerate(fields)]


def test_a_segment_ends_when_the_first_branch_is_expected_to_finish():
    assert segment_length(branches({"allocated_iterations": 3}, {"allocated_iterations": 3})) == 3
    # 5, 4, 2 and 1 iterations: the one-iteration branch is synthesized after one step
    staggered = branches(*({"allocated_iterations": n, "iteration_count": 0} for n in (5, 4, 2, 1)))
    assert segment_length(staggered) == 1
    assert segment_length(branches({"allocated_iterations": 5, "iteration_count": 2}, {"allocated_iterations": 4})) == 3
    assert segment_length(branches({"allocated_iterations": 2, "iteration_count": 2})) == 1  # always one step
