"""Iteration and cost allocation, including the seeds' worked example."""

from __future__ import annotations

import pytest

from research_core.planning.budget import (
    allocate_iterations,
    clamp,
    estimate_cost_range,
    flat_iterations,
    fund_branches,
    funding_note,
    reserve_synthesis_cost,
    reserved_iterations,
    run_iteration_cap,
    split_by_priority,
)
from research_core.research.stopping import branch_stop_decision

SEEDS_PRIORITIES = [1.0, 0.9, 0.9, 1.0]


def test_seeds_worked_example_research_budget_split():
    # The seeds' section 5.1: 18 research iterations over priorities 1.0/0.9/0.9/1.0 -> 5/4/4/5.
    assert split_by_priority(18, SEEDS_PRIORITIES) == [5, 4, 4, 5]


def test_seeds_formula_with_full_reservation():
    # reserved = 1 decomposition + 4 branch syntheses + 1 meta = 6; 14 left: 3.68/3.32/3.32/3.68
    assert reserved_iterations(4) == 6
    assert allocate_iterations(20, SEEDS_PRIORITIES, 2, 5) == [4, 3, 3, 4]
    # with the seeds' hierarchical template limits (3..6) the same split holds
    assert allocate_iterations(20, SEEDS_PRIORITIES, 3, 6) == [4, 3, 3, 4]


def test_shares_always_add_up_to_the_budget_before_clamping():
    for total in range(0, 40):
        for prios in ([1.0], [0.5, 0.5], [0.9, 0.1, 0.3], [0.2, 0.2, 0.2, 0.2, 0.2]):
            assert sum(split_by_priority(total, prios)) == total


def test_clamp_bounds_each_branch():
    assert allocate_iterations(100, [1.0, 0.1], 2, 5) == [5, 5]
    assert allocate_iterations(8, [1.0, 0.01], 2, 5) == [4, 2]
    assert allocate_iterations(3, [1.0, 1.0, 1.0], 2, 5) == [2, 2, 2]  # minimum wins over an empty pool
    assert clamp(7, 2, 5) == 5 and clamp(0, 2, 5) == 2


def test_zero_priorities_share_equally():
    assert split_by_priority(6, [0.0, 0.0, 0.0]) == [2, 2, 2]


def test_flat_gets_the_same_total_budget_less_its_synthesis():
    assert flat_iterations(20) == 19
    assert flat_iterations(1) == 1


def test_synthesis_reservation_is_free_for_local_models_and_priced_otherwise():
    free = reserve_synthesis_cost((0.0, 0.0), (0.0, 0.0))
    assert free.total(5) == 0
    paid = reserve_synthesis_cost((0.15, 0.60), (2.5, 10.0))
    assert paid.total(4) == pytest.approx(4 * (3000 * 0.15 + 800 * 0.6) / 1e6 + (6000 * 2.5 + 1500 * 10) / 1e6)
    checked = reserve_synthesis_cost((0.15, 0.60), (2.5, 10.0), verify_citations=True, coverage_check=True)
    assert checked.per_branch_synthesis == pytest.approx((3000 * 0.15 + 800 * 0.6 + 1500 * 0.15 + 300 * 0.6) / 1e6)
    assert checked.meta_synthesis == pytest.approx((6000 * 2.5 + 1500 * 10 + 2000 * 0.15 + 300 * 0.6) / 1e6)
    low, high = estimate_cost_range(14, 4, (0.15, 0.6), (2.5, 10.0))
    assert 0 < low < high


@pytest.mark.parametrize(
    ("done", "alloc", "confs", "stop", "why"),
    [
        (1, 4, [0.5, 0.5, 0.5], False, "continue"),  # 3 findings but minimum (2) not met
        (2, 4, [0.5, 0.5, 0.5], True, "enough findings"),
        (1, 4, [0.8, 0.7], False, "continue"),  # the model's confidence does not waive the minimum
        (2, 4, [0.8, 0.7], True, "high confidence"),
        (1, 4, [0.9], False, "continue"),  # one finding is not enough for the quality rule
        (4, 4, [], True, "budget spent"),
        (3, 4, [0.4, 0.5], False, "continue"),
    ],
)
def test_branch_stop_criteria(done, alloc, confs, stop, why):
    decision = branch_stop_decision(done, alloc, 2, confs)
    assert decision.stop is stop
    assert why in decision.reason


def test_prices_are_known_for_listed_models_their_dated_variants_and_local_models():
    from research_core.llm.costs import price_known

    table = {"gpt-4o-mini": (0.15, 0.6)}
    assert price_known("gpt-4o-mini", table, local=False)
    assert price_known("gpt-4o-mini-2024-07-18", table, local=False)
    assert not price_known("llama3.1:70b", table, local=False)
    assert price_known("llama3.1:70b", table, local=True)


# ---- the iteration ceiling -----------------------------------------------------------------


def test_run_iteration_cap_never_exceeds_max_iterations():
    assert run_iteration_cap(20, 4, flat=False) == 14  # 20 less 6 reserved
    assert run_iteration_cap(20, 3, flat=True) == 19
    # every active branch may get one iteration, but never more than the whole budget
    assert run_iteration_cap(9, 6, flat=False) == 6
    assert run_iteration_cap(20, 1000, flat=False) == 20
    assert run_iteration_cap(1, 3, flat=False) == 1


def test_fund_branches_keeps_the_old_split_when_it_fits():
    funding = fund_branches(20, SEEDS_PRIORITIES, 2, 5)
    assert funding.shares == [4, 3, 3, 4] and funding.cap == 14
    assert funding.unfunded == [] and funding.underfunded == []
    assert funding_note(funding, ["a", "b", "c", "d"], 20) is None


def test_fund_branches_hands_the_ceiling_out_by_priority():
    # 9 iterations, 2 branches: 5 for research; each wants its minimum of 3
    funding = fund_branches(9, [1.0, 0.8], 3, 5)
    assert funding.shares == [3, 2] and funding.underfunded == [1]
    # 8 iterations, 4 branches: 4 for research, so the two lowest priorities get nothing
    funding = fund_branches(8, [0.2, 1.0, 0.5, 0.9], 2, 5)
    assert funding.shares == [0, 2, 0, 2] and funding.unfunded == [0, 2] and funding.funded == 2
    note = funding_note(funding, ["sq_001", "sq_002", "sq_003", "sq_004"], 8)
    assert "max_iterations=8" in note and "sq_001, sq_003 wait unfunded" in note
    assert "raise max_iterations" in note


def test_fund_branches_never_promises_more_than_the_ceiling():
    for max_iterations in (1, 4, 9, 20, 50):
        for n in (1, 3, 8, 40, 1000):
            priorities = [((i * 37) % 10) / 10 for i in range(n)]
            funding = fund_branches(max_iterations, priorities, 2, 5)
            assert sum(funding.shares) <= funding.cap <= max_iterations


def test_plan_budget_is_the_one_funding_and_estimate_of_a_plan():
    from research_core.configuration import RunConfig
    from research_core.planning.budget import plan_budget

    config = RunConfig(max_iterations=8, sub_question_min_iterations=2, sub_question_max_iterations=5)
    priorities = {"sq_001": 0.2, "sq_002": 1.0, "sq_003": 0.5, "sq_004": 0.9}
    prices = ((0.15, 0.6), (2.5, 10.0))
    budget = plan_budget(config, priorities, prices)
    funding = fund_branches(8, list(priorities.values()), 2, 5)
    assert budget.allocated == dict(
        zip(priorities, allocate_iterations(8, list(priorities.values()), 2, 5), strict=True)
    )
    assert budget.iterations == dict(zip(priorities, funding.shares, strict=True))
    assert budget.unfunded == [list(priorities)[i] for i in funding.unfunded]
    assert budget.note == funding_note(funding, list(priorities), 8)
    assert budget.cost_usd == estimate_cost_range(sum(funding.shares), funding.funded, *prices)
    assert plan_budget(config, priorities).cost_usd is None  # without prices, no cost estimate
