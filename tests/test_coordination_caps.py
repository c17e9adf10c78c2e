"""The cost cap and the iteration budget `coordinate` applies before scheduling (`coordination/caps.py`)."""

from __future__ import annotations

from typing import Any

from research_core.coordination.caps import (
    Caps,
    apply_caps,
    cost_cap_reached,
    iterations_used,
    measure_caps,
    open_branch_count,
    research_unfinished,
)
from research_core.planning.budget import run_iteration_cap
from tests.coordination_support import make_pass, priced_services, records


def test_caps_halt_reason_names_the_cost_cap_first() -> None:
    both = Caps(spent=1.0, reservation=0.1, exhausted=True, used=10, cap=10, out_of_iterations=True)
    assert both.halted and both.halt_reason == "cost cap reached"
    iterations = Caps(spent=0.0, reservation=0.1, exhausted=False, used=10, cap=10, out_of_iterations=True)
    assert iterations.halted and iterations.halt_reason == "iteration budget spent"
    neither = Caps(spent=0.0, reservation=0.1, exhausted=False, used=1, cap=10, out_of_iterations=False)
    assert not neither.halted


def test_iterations_left_is_the_cap_minus_what_was_used() -> None:
    assert Caps(0.0, 0.0, False, used=3, cap=10, out_of_iterations=False).iterations_left == 7


def test_the_cost_cap_counts_the_synthesis_reservation_once_something_was_spent() -> None:
    assert not cost_cap_reached(0.0, 5.0, 1.0)  # nothing spent yet: the reservation alone never stops a run
    assert not cost_cap_reached(0.5, 0.4, 1.0)
    assert cost_cap_reached(0.6, 0.4, 1.0)  # reaching the cap is enough
    assert cost_cap_reached(1.5, 0.0, 1.0)


def test_branch_counts_for_the_caps() -> None:
    branches = records(
        {
            "a": {"status": "completed", "iteration_count": 3, "research_done": True},
            "b": {"status": "researching", "iteration_count": 2},
            "c": {"status": "pending"},
            "d": {"status": "skipped"},
        }
    )
    assert open_branch_count(branches) == 2  # completed and skipped are final
    assert iterations_used(branches) == 5
    assert research_unfinished(branches)
    assert not research_unfinished(records({"b": {"status": "researching", "research_done": True}, "a": branches["a"]}))


def state(mode: str = "hierarchical", cost: float = 0.0, **extra: Any) -> Any:
    return {"mode": mode, "costs": [{"cost_usd": cost}] if cost else [], **extra}


def test_measure_caps_uses_the_run_iteration_ceiling_of_its_mode() -> None:
    branches = {
        "a": {"status": "researching", "iteration_count": 3},
        "b": {"status": "pending"},
        "c": {"status": "skipped"},  # not an active branch
    }
    free = priced_services((0.0, 0.0), (0.0, 0.0))
    hierarchical = measure_caps(state(), make_pass(branches, max_iterations=8), free)
    assert hierarchical.used == 3 and hierarchical.reservation == 0.0 and not hierarchical.exhausted
    assert hierarchical.cap == run_iteration_cap(8, 2, flat=False) == 4
    assert not hierarchical.out_of_iterations
    flat = measure_caps(
        state("flat"), make_pass({"a": {"status": "researching", "iteration_count": 7}}, max_iterations=8), free
    )
    assert flat.cap == 7 and flat.out_of_iterations  # a flat run keeps one iteration for its answer


def test_the_reservation_grows_with_the_branches_still_to_answer() -> None:
    one = measure_caps(state(), make_pass({"a": {"status": "pending"}}), priced_services())
    two = measure_caps(state(), make_pass({"a": {"status": "pending"}, "b": {"status": "pending"}}), priced_services())
    done = measure_caps(state(), make_pass({"a": {"status": "completed"}}), priced_services())
    assert done.reservation < one.reservation < two.reservation


def test_the_cost_cap_is_warned_about_once_per_run() -> None:
    p = make_pass({"a": {"status": "researching", "iteration_count": 1}}, max_total_cost_usd=0.01)
    caps = apply_caps(state(cost=0.02), p, priced_services())
    assert caps.exhausted and caps.halt_reason == "cost cap reached"
    assert p.extra == {"budget_exhausted_logged": True}
    assert p.warnings[0].startswith("Cost cap reached: $0.0200 spent of $0.01")
    assert p.log[0]["kind"] == "budget" and p.log[0]["node"] == "coordinate"
    again = make_pass({"a": {"status": "researching", "iteration_count": 1}}, max_total_cost_usd=0.01)
    assert apply_caps(state(cost=0.03, budget_exhausted_logged=True), again, priced_services()).exhausted
    assert again.warnings == [] and again.log == [] and again.extra == {}


def test_the_iteration_budget_is_warned_about_only_while_research_is_unfinished() -> None:
    free = priced_services((0.0, 0.0), (0.0, 0.0))
    p = make_pass({"a": {"status": "researching", "iteration_count": 8}}, max_iterations=8)
    caps = apply_caps(state("flat"), p, free)
    assert caps.out_of_iterations and caps.halt_reason == "iteration budget spent"
    assert p.warnings == [f"Iteration budget spent (8 research iterations of {caps.cap}); remaining research stopped."]
    assert p.extra == {"iterations_exhausted_logged": True}
    finished = make_pass(
        {"a": {"status": "researching", "iteration_count": 8, "research_done": True}}, max_iterations=8
    )
    assert apply_caps(state("flat"), finished, free).out_of_iterations
    assert finished.warnings == [] and finished.extra == {}
    logged = make_pass({"a": {"status": "researching", "iteration_count": 8}}, max_iterations=8)
    apply_caps(state("flat", iterations_exhausted_logged=True), logged, free)
    assert logged.warnings == []


def test_only_the_cost_cap_is_warned_about_when_both_are_reached() -> None:
    p = make_pass({"a": {"status": "researching", "iteration_count": 8}}, max_iterations=8, max_total_cost_usd=0.01)
    caps = apply_caps(state("flat", cost=0.02), p, priced_services())
    assert caps.exhausted and caps.out_of_iterations
    assert len(p.warnings) == 1 and p.warnings[0].startswith("Cost cap reached")
