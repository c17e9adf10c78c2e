"""The plan editor's table: rows from the review gate, validation, estimates and re-decomposition.

Pure functions over lists of row dicts (and pandas frames for `st.data_editor`), so the page stays
thin and the rules are testable without a browser. Validation is the review gate's own parser
(`research_core.gates.parse_review_answer`), run on every edit, so Approve is only enabled for a
plan the engine will accept, and sends the typed answer it returned.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from research_core.configuration import RunConfig
from research_core.gates import ReviewApprove, parse_review_answer
from research_core.planning.budget import plan_budget
from research_core.planning.plan import PlanError
from research_core.schemas import Plan
from research_core.tree import BranchTree

COLUMNS = ["order", "id", "question_text", "priority", "rationale", "parent_id"]
TEXT_COLUMNS = ("id", "question_text", "rationale", "parent_id")


def rows_from_payload(sub_questions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Editor rows from the review gate's sub-questions, numbered in their current order."""
    rows = []
    for n, sq in enumerate(sub_questions, start=1):
        rows.append(
            {
                "order": n,
                "id": sq.get("id") or "",
                "question_text": sq.get("question_text") or "",
                "priority": sq.get("priority"),
                "rationale": sq.get("rationale") or "",
                "parent_id": sq.get("parent_id") or "",
            }
        )
    return rows


def to_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The rows as a DataFrame with the editor's columns and dtypes."""
    frame = pd.DataFrame(list(rows), columns=COLUMNS)
    for col in TEXT_COLUMNS:
        frame[col] = frame[col].astype("object")
    frame["priority"] = pd.to_numeric(frame["priority"], errors="coerce").astype("float64")
    frame["order"] = pd.to_numeric(frame["order"], errors="coerce").astype("float64")
    return frame


def _missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return bool(value is pd.NA or value is pd.NaT)


def rows_from_frame(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Plain rows from the edited frame: missing cells become "" (text) or None (numbers)."""
    rows = []
    for record in frame.to_dict(orient="records"):
        row: dict[str, Any] = {}
        for col in COLUMNS:
            value = record.get(col)
            if col in TEXT_COLUMNS:
                row[col] = "" if _missing(value) else str(value).strip()
            else:
                row[col] = None if _missing(value) else value
        rows.append(row)
    return rows


def ordered(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows sorted by their `order` value (rows without one keep their place at the end)."""
    indexed = list(enumerate(rows))

    def key(item: tuple[int, dict[str, Any]]) -> tuple[int, float, int]:
        index, row = item
        order = row.get("order")
        try:
            number = float(order)
        except (TypeError, ValueError):
            return (1, 0.0, index)
        return (0, number, index) if not math.isnan(number) else (1, 0.0, index)

    return [row for _, row in sorted(indexed, key=key)]


def answer_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows the review gate expects, in the chosen order, without the editor-only column."""
    out = []
    for row in ordered(rows):
        out.append(
            {
                "id": row.get("id") or None,
                "question_text": row.get("question_text") or "",
                "priority": row.get("priority"),
                "rationale": row.get("rationale") or "",
                "parent_id": row.get("parent_id") or None,
            }
        )
    return out


@dataclass
class PlanCheck:
    """The outcome of validating the edited table."""

    plan: Plan | None
    error: str | None
    numbers: dict[str, str] = field(default_factory=dict)
    tree: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the engine will accept the plan."""
        return self.plan is not None and self.error is None

    @property
    def answer(self) -> ReviewApprove | None:
        """The review gate's typed answer approving the checked plan; None while the plan is refused."""
        return ReviewApprove(plan=self.plan) if self.ok else None


def check_rows(
    rows: Sequence[dict[str, Any]], question: str, strategy: str | None = None, config: RunConfig | None = None
) -> PlanCheck:
    """Check the edited rows with the review gate's parser (and the run's plan limits, given `config`);
    the error is the gate's, naming the row or the limit to fix."""
    edited = {"action": "approve", "sub_questions": answer_rows(rows), "strategy": strategy}
    try:
        parsed = parse_review_answer(edited, question, strategy, config)
    except PlanError as exc:
        return PlanCheck(None, str(exc))
    assert isinstance(parsed, ReviewApprove) and parsed.plan is not None  # an edited plan, approved
    plan = parsed.plan
    tree = BranchTree({sq.id: {"parent_id": sq.parent_id} for sq in plan.sub_questions})
    return PlanCheck(plan, None, tree.numbers(), tree.depth_first())


@dataclass(frozen=True)
class Estimate:
    """Iterations per branch and the cost range of a plan."""

    iterations: dict[str, int]
    cost_low: float
    cost_high: float
    unfunded: list[str] = field(default_factory=list)
    note: str | None = None

    @property
    def total_iterations(self) -> int:
        """Research iterations of all branches together."""
        return sum(self.iterations.values())


def estimate(
    plan: Plan, config: RunConfig, work_price: tuple[float, float], synthesis_price: tuple[float, float]
) -> Estimate:
    """Recompute the budget the engine will give each branch, and the cost range, from priorities.

    Never more than `max_iterations` allows: branches it cannot fund get 0 and are named in `note`.
    """
    budget = plan_budget(config, {sq.id: sq.priority for sq in plan.sub_questions}, (work_price, synthesis_price))
    low, high = budget.cost_usd or (0.0, 0.0)
    return Estimate(budget.iterations, low, high, budget.unfunded, budget.note)


def add_children(
    rows: Sequence[dict[str, Any]], parent_id: str, children: Iterable[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Insert `children` (question_text, priority, rationale) under `parent_id`, right after its subtree.

    Children get ids `parent.1`, `parent.2` … (skipping ids in use); every row is renumbered so
    the order column matches the new position.
    """
    current = ordered(rows)
    ids = {r["id"] for r in current if r.get("id")}
    if parent_id not in ids:
        raise PlanError(f"There is no sub-question {parent_id!r} to split.")
    tree = BranchTree({r["id"]: r for r in current if r.get("id")})
    end = tree.subtree_end([r.get("id") or "" for r in current], parent_id)
    new_rows = []
    n = 1
    for child in children:
        while f"{parent_id}.{n}" in ids:
            n += 1
        child_id = f"{parent_id}.{n}"
        ids.add(child_id)
        new_rows.append(
            {
                "order": None,
                "id": child_id,
                "question_text": str(child.get("question_text") or "").strip(),
                "priority": child.get("priority", 0.5),
                "rationale": str(child.get("rationale") or ""),
                "parent_id": parent_id,
            }
        )
    merged = [*current[:end], *new_rows, *current[end:]]
    return [{**row, "order": i} for i, row in enumerate(merged, start=1)]


def renumber(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows in their chosen order with the order column reset to 1, 2, 3 …"""
    return [{**row, "order": i} for i, row in enumerate(ordered(rows), start=1)]


def proposed_children(proposal: Plan) -> list[dict[str, Any]]:
    """The sub-questions of a re-decomposition as children for `add_children`."""
    return [
        {"question_text": sq.question_text, "priority": sq.priority, "rationale": sq.rationale}
        for sq in proposal.sub_questions
    ]
