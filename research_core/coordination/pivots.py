"""Hypothesis mode: a refuted hypothesis's suggested pivot becomes a new hypothesis, once."""

from __future__ import annotations

from research_core.coordination.pass_state import CoordinationPass, coordinate_log
from research_core.planning.hypotheses import hypothesis_branches
from research_core.schemas import HypothesesOutput, ProposedHypothesis, SubQuestion


def pivot_due(branch: SubQuestion) -> bool:
    """Whether `branch` is a completed hypothesis whose verdict suggests a pivot not yet handled."""
    h = branch.hypothesis or {}
    return (
        branch.kind == "hypothesis"
        and branch.status == "completed"
        and bool(h.get("pivot"))
        and not h.get("pivot_handled")
    )


def pivot_proposal(hypothesis: dict) -> HypothesesOutput:
    """The pivot of `hypothesis` as a proposal of one hypothesis, keeping its strategy and criteria."""
    return HypothesesOutput(
        hypotheses=[
            ProposedHypothesis(
                statement=hypothesis["pivot"],
                search_strategy=hypothesis.get("search_strategy") or "",
                validation_criteria=hypothesis.get("validation_criteria") or "",
            )
        ]
    )


def take_hypothesis_pivots(p: CoordinationPass) -> None:
    """A completed hypothesis's pivot becomes a new hypothesis, once, unless stopped, at the ceiling or a repeat."""
    for bid in list(p.order):
        b = p.branches[bid]
        if not pivot_due(b):
            continue
        h = b.hypothesis or {}
        p.change(bid, {"hypothesis": {**h, "pivot_handled": True}})
        count = sum(1 for v in p.branches.values() if v.kind == "hypothesis")
        if p.stop or count >= p.config.max_hypotheses:
            message = f"Pivot not taken: the ceiling of {p.config.max_hypotheses} hypotheses is reached."
            p.log.append(coordinate_log(message, kind="hypothesis", branch=bid))
            continue
        made = hypothesis_branches(pivot_proposal(h), p.config, p.branches, 1, pivot_of=bid)
        if not made:
            message = "Pivot not taken: it repeats an existing hypothesis."
            p.log.append(coordinate_log(message, kind="hypothesis", branch=bid))
            continue
        p.change(made[0].id, made[0].model_dump())
        p.set_order([*p.order, made[0].id])
        p.log.append(coordinate_log(f"Pivot from {bid}: {made[0].id} added.", kind="hypothesis", branch=bid))
