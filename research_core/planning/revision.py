"""Adaptive plans: validate and apply the plan reviser's changes to the pending branches."""

from __future__ import annotations

from typing import Any

from research_core.configuration import RunConfig
from research_core.planning.budget import clamp
from research_core.planning.plan import branch_id
from research_core.schemas import PlanRevisionOutput, SubQuestion
from research_core.text.similarity import is_near_duplicate


def vet_revision(
    out: PlanRevisionOutput, branches: dict[str, SubQuestion], config: RunConfig
) -> tuple[dict[str, Any], list[str]]:
    """Keep only allowed changes: pending ids only, no near-duplicates, within the ceilings.

    Returns (changes, notes on what was refused).
    """
    notes: list[str] = []
    pending = {b for b, v in branches.items() if v.status == "pending"}
    drop = [d for d in dict.fromkeys(out.drop) if d in pending]
    notes += [f"cannot drop {d}: not a pending branch" for d in out.drop if d not in pending]
    reprioritize = {
        k: round(min(1.0, max(0.0, float(v))), 3)
        for k, v in out.reprioritize.items()
        if k in pending and k not in drop and abs(float(v) - branches[k].priority) >= 0.05
    }
    room = config.max_total_sub_questions - len(branches)
    existing = [v.question_text for v in branches.values()]
    add = []
    for proposed in out.add:
        twin = is_near_duplicate(proposed.question, existing)
        if twin is not None:
            notes.append(f"refused duplicate {proposed.question!r} (too close to {twin!r})")
            continue
        if len(add) >= room:
            notes.append(
                f"refused {proposed.question!r}: the plan is at its ceiling of {config.max_total_sub_questions}"
            )
            continue
        existing.append(proposed.question)
        add.append(
            {
                "question_text": proposed.question.strip(),
                "priority": proposed.priority,
                "rationale": proposed.rationale or "Added by plan revision.",
            }
        )
    return {"add": add, "drop": drop, "reprioritize": reprioritize, "reasoning": out.reasoning}, notes


# The lowest priority an automatic revision may give a branch the user approved, so it keeps its share.
MIN_APPROVED_PRIORITY = 0.3


def keep_approved_branches(
    changes: dict[str, Any], branches: dict[str, SubQuestion]
) -> tuple[dict[str, Any], list[str]]:
    """Without the user (auto mode) a revision may add and re-prioritise, never drop or starve a branch.

    Proposed drops become suggestions in the log; a lowered priority stays at or above
    `MIN_APPROVED_PRIORITY`. Returns (changes to apply, notes for the log).
    """
    notes = [
        f"Suggestion (not applied: approved branches are kept without your say): drop {bid} "
        f"{branches[bid].question_text!r}"
        for bid in changes.get("drop", [])
    ]
    reprioritize = {}
    for bid, priority in changes.get("reprioritize", {}).items():
        floor = min(MIN_APPROVED_PRIORITY, branches[bid].priority)
        if priority < floor:
            notes.append(f"Kept {bid} at priority {floor:.2f} (the revision proposed {priority:.2f})")
            priority = floor
        if abs(priority - branches[bid].priority) >= 0.05:
            reprioritize[bid] = priority
    return {**changes, "drop": [], "reprioritize": reprioritize}, notes


def revision_is_empty(changes: dict[str, Any]) -> bool:
    """True when a revision changes nothing."""
    return not (changes.get("add") or changes.get("drop") or changes.get("reprioritize"))


def apply_revision(
    changes: dict[str, Any], branches: dict[str, SubQuestion], order: list[str], config: RunConfig
) -> tuple[dict[str, dict], list[str]]:
    """Branch updates and the new branch order for accepted changes."""
    updates: dict[str, dict] = {}
    pending = {bid for bid, b in branches.items() if b.status == "pending"}
    for bid in changes.get("drop", []):
        if bid in pending:
            updates[bid] = {"status": "skipped", "stop_reason": "dropped by plan revision"}
    for bid, priority in changes.get("reprioritize", {}).items():
        if bid in pending:
            updates[bid] = {"priority": priority}
    new_order = list(order)
    top = sum(1 for b in branches.values() if not b.parent_id)
    for item in changes.get("add", []):
        top += 1
        while branch_id(top) in branches or branch_id(top) in updates:
            top += 1
        sq = SubQuestion(
            id=branch_id(top),
            question_text=item["question_text"],
            priority=float(item["priority"]),
            rationale=item.get("rationale", ""),
            allocated_iterations=clamp(
                round(float(item["priority"]) * config.sub_question_max_iterations),
                config.sub_question_min_iterations,
                config.sub_question_max_iterations,
            ),
        )
        updates[sq.id] = sq.model_dump()
        new_order.append(sq.id)
    return updates, new_order
