"""Hypothesis pivots (`coordination/pivots.py`): a refuted hypothesis's pivot becomes a new one, once."""

from __future__ import annotations

from research_core.coordination.pivots import pivot_due, pivot_proposal, take_hypothesis_pivots
from tests.coordination_support import branch, hypothesis, make_pass


def test_a_pivot_is_due_once_for_a_completed_hypothesis_only() -> None:
    assert pivot_due(branch(**hypothesis("h1")))
    assert not pivot_due(branch(**hypothesis("h1", pivot_handled=True)))
    assert not pivot_due(branch(**{**hypothesis("h1"), "status": "researching"}))
    assert not pivot_due(branch(**{**hypothesis("h1"), "kind": "question"}))
    assert not pivot_due(branch(**{**hypothesis("h1"), "hypothesis": {"pivot": ""}}))


def test_the_pivot_keeps_the_strategy_and_criteria_of_its_hypothesis() -> None:
    proposal = pivot_proposal({"pivot": "Cost decides.", "search_strategy": "prices", "validation_criteria": None})
    (only,) = proposal.hypotheses
    assert only.statement == "Cost decides." and only.search_strategy == "prices" and only.validation_criteria == ""


def test_a_pivot_becomes_a_new_hypothesis_at_the_end_of_the_plan() -> None:
    h1 = {**hypothesis("h1"), "question_text": "Ecosystem maturity decides adoption."}
    p = make_pass({"h1": h1}, max_hypotheses=3)
    take_hypothesis_pivots(p)
    (new,) = [b for b in p.order if b != "h1"]
    assert p.order == ["h1", new] and p.extra["branch_order"] == p.order
    assert p.branches[new].kind == "hypothesis" and p.branches[new].question_text == "A better hypothesis."
    assert p.updates["h1"]["hypothesis"]["pivot_handled"] is True
    assert p.log[-1]["message"] == f"Pivot from h1: {new} added."


def test_a_pivot_repeating_an_existing_hypothesis_is_not_taken() -> None:
    h1 = {**hypothesis("h1"), "question_text": "A better hypothesis."}
    p = make_pass({"h1": h1}, max_hypotheses=3)
    take_hypothesis_pivots(p)
    assert p.order == ["h1"] and list(p.updates) == ["h1"]
    assert p.log[-1]["message"] == "Pivot not taken: it repeats an existing hypothesis."


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
