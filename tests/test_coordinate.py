"""The steps of `coordinate` that decide without the graph: findings, caps, drill-down room, pivots, revisions."""

from __future__ import annotations

from typing import Any

from research_core.configuration import RunConfig
from research_core.coordination.coordinate import (
    Caps,
    CoordinationPass,
    add_drill_children,
    findings_index,
    hold_for_revision,
    take_hypothesis_pivots,
)


def make_pass(branches: dict[str, dict], *, stop: bool = False, **config: Any) -> CoordinationPass:
    """A pass over `branches` (in their order) with a RunConfig built from `config`."""
    return CoordinationPass(
        config=RunConfig(**config), branches=branches, order=list(branches), stop=stop, acknowledged=[]
    )


def test_findings_index_counts_and_groups_by_branch_in_order() -> None:
    findings = [
        {"sub_question_id": "sq1", "text": "a"},
        {"sub_question_id": "sq2", "text": "b"},
        {"sub_question_id": "sq1", "text": "c"},
    ]
    counts, by_branch = findings_index(findings)
    assert counts == {"sq1": 2, "sq2": 1}
    assert [f["text"] for f in by_branch["sq1"]] == ["a", "c"]
    assert findings_index([]) == ({}, {})


def test_caps_halt_reason_names_the_cost_cap_first() -> None:
    both = Caps(spent=1.0, reservation=0.1, exhausted=True, used=10, cap=10, out_of_iterations=True)
    assert both.halted and both.halt_reason == "cost cap reached"
    iterations = Caps(spent=0.0, reservation=0.1, exhausted=False, used=10, cap=10, out_of_iterations=True)
    assert iterations.halted and iterations.halt_reason == "iteration budget spent"
    neither = Caps(spent=0.0, reservation=0.1, exhausted=False, used=1, cap=10, out_of_iterations=False)
    assert not neither.halted


def test_a_drill_down_without_room_under_the_ceiling_is_rejected() -> None:
    p = make_pass({"sq1": {"id": "sq1", "drill_status": "proposed"}}, max_total_sub_questions=1)
    add_drill_children(p, "sq1", [{"question_text": "Narrower?", "priority": 0.5}])
    assert p.updates == {"sq1": {"drill_status": "rejected"}}
    assert p.branches["sq1"]["drill_status"] == "rejected"
    assert p.order == ["sq1"] and "branch_order" not in p.extra
    assert p.log[-1]["message"] == "Drill-down not taken."


def test_a_drill_down_with_no_children_is_rejected() -> None:
    p = make_pass({"sq1": {"id": "sq1", "drill_status": "proposed"}})
    add_drill_children(p, "sq1", [])
    assert p.updates == {"sq1": {"drill_status": "rejected"}}


def hypothesis(bid: str, **fields: Any) -> dict:
    """A completed hypothesis branch whose verdict suggests a pivot."""
    return {
        "id": bid,
        "kind": "hypothesis",
        "status": "completed",
        "hypothesis": {"pivot": "A better hypothesis.", **fields},
    }


def test_a_pivot_is_not_taken_once_the_run_stops_but_is_marked_handled() -> None:
    p = make_pass({"h1": hypothesis("h1")}, stop=True)
    take_hypothesis_pivots(p)
    assert p.updates == {"h1": {"hypothesis": {"pivot": "A better hypothesis.", "pivot_handled": True}}}
    assert p.order == ["h1"]
    assert "ceiling" in p.log[-1]["message"]


def test_a_pivot_at_the_hypothesis_ceiling_is_not_taken() -> None:
    p = make_pass({"h1": hypothesis("h1"), "h2": hypothesis("h2", pivot_handled=True)}, max_hypotheses=2)
    take_hypothesis_pivots(p)
    assert list(p.updates) == ["h1"]
    assert p.log[-1]["message"] == "Pivot not taken: the ceiling of 2 hypotheses is reached."


def test_a_handled_pivot_and_a_branch_still_researching_are_left_alone() -> None:
    researching = {**hypothesis("h2"), "status": "researching"}
    p = make_pass({"h1": hypothesis("h1", pivot_handled=True), "h2": researching})
    take_hypothesis_pivots(p)
    assert p.updates == {} and p.log == []


def test_outside_hierarchical_mode_nothing_is_held_for_a_revision() -> None:
    branches = {"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}}
    state: Any = {"mode": "flat", "branches": branches, "revised_after": [], "question": "Q", "config": {}}
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
    state: Any = {"mode": "hierarchical", "branches": branches, "question": "Q", "config": {}, "revisions_done": 1}
    p = make_pass({b: dict(v) for b, v in branches.items()})
    p.branches["sq2"]["status"] = "researching"  # what the scheduler would start now
    research_ids, task = hold_for_revision(state, p, ["sq2", "sq3"], exhausted=False)
    assert research_ids == ["sq3"]
    assert p.updates == {"sq2": {"status": "pending"}}
    assert task is not None and task["node"] == "revise_plan"
    assert task["payload"]["finished"] == ["sq1"] and task["payload"]["revisions_done"] == 1


def test_no_revision_once_the_cost_cap_is_reached() -> None:
    branches = {"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}}
    state: Any = {"mode": "hierarchical", "branches": branches, "question": "Q", "config": {}}
    p = make_pass({b: dict(v) for b, v in branches.items()})
    research_ids, task = hold_for_revision(state, p, ["sq2"], exhausted=True)
    assert research_ids == ["sq2"] and task is None
