"""Turning LLM decompositions and user edits into a valid research tree."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from research_core.configuration import RunConfig
from research_core.errors import ArborError
from research_core.planning.question_shape import frame_head, stand_alone
from research_core.planning.side_branches import COMPARE_VERB, cover_sides
from research_core.planning.trim import part_covered, parts_to_cover, trim_plan
from research_core.schemas import DecompositionOutput, Plan, ProposedSubQuestion, SubQuestion
from research_core.text.sanitize import strip_control_chars
from research_core.tree import BranchTree

logger = logging.getLogger(__name__)

MAX_PLAN_DEPTH = 3
MAX_QUESTION_CHARS = 2000


class PlanError(ArborError, ValueError):
    """A plan or plan edit is invalid; the message (its `user_message`) says what to fix.

    Still a `ValueError`, for callers that catch that.
    """


def branch_id(index: int, parent_id: str | None = None) -> str:
    """Id of the `index`-th (1-based) sub-question: sq_001, or sq_001.2 under a parent."""
    return f"{parent_id}.{index}" if parent_id else f"sq_{index:03d}"


# Priority of a sub-question added for a part of the question the model left out.
MISSING_PART_PRIORITY = 0.85


def framed_part(question: str, part: str) -> str:
    """A clause of `question` as a sub-question of its own: under the head that frames the question's
    clauses ("Compare name-based and IP-based virtual hosts in Apache: how is each configured, ...")
    the head's topic comes first ("Name-based and IP-based virtual hosts in Apache: how is each
    configured?"), since "How is each configured?" alone says neither what nor each of what."""
    head = frame_head(question)
    topic = COMPARE_VERB.sub("", head).strip()
    body = part.rstrip(" ?？")
    if topic and part.strip(" ,.;:?") != head.strip(" ,.;:?"):
        return f"{topic[0].upper()}{topic[1:]}: {body}?"
    return f"{body[0].upper()}{body[1:]}?"


def cover_question_parts(question: str, proposed: list[ProposedSubQuestion]) -> tuple[list, list[str]]:
    """Make sure each clause of a multi-part question (`parts_to_cover`) has a sub-question; returns
    (list, added texts).

    A clause none of the proposed sub-questions covers (by its topic words) becomes a sub-question of
    its own, at a high priority; `trim_plan` keeps it when the plan is cut to the maximum.
    """
    out = list(proposed)
    added: list[str] = []
    for part in parts_to_cover(question):
        if part_covered(part, [sq.question for sq in out]):
            continue
        text = framed_part(question, part)
        out.append(
            ProposedSubQuestion(question=text, priority=MISSING_PART_PRIORITY, rationale="A part of the question.")
        )
        added.append(text)
    return out, added


def plan_from_decomposition(question: str, output: DecompositionOutput, config: RunConfig) -> tuple[Plan, list[str]]:
    """Build a Plan from the LLM's decomposition, enforcing the configured bounds.

    Fewer than the minimum: keep them and warn. More than the maximum: keep the highest
    priorities (stable for ties), in the order the LLM gave them.
    """
    warnings: list[str] = []
    proposed = [sq for sq in output.sub_questions if sq.question.strip()]
    seen: set[str] = set()
    unique = []
    for sq in proposed:
        key = " ".join(sq.question.lower().split())
        if key not in seen:
            seen.add(key)
            unique.append(sq)
    unique, added = cover_question_parts(question, unique)
    if added:
        warnings.append(
            f"Added {len(added)} sub-question(s) for part(s) of the question the model left out: "
            + "; ".join(repr(a) for a in added)
        )
    unique, sided = cover_sides(question, unique)
    if sided:
        warnings.append(
            f"Added {len(sided)} sub-question(s) so each option the question compares is researched on its own: "
            + "; ".join(repr(a) for a in sided)
        )
    if len(unique) > config.max_sub_questions:
        warnings.append(
            f"The plan had {len(unique)} sub-questions; kept {config.max_sub_questions}: every part of the "
            "question, then the highest priorities."
        )
        unique = trim_plan(question, unique, config.max_sub_questions)
    if len(unique) < config.min_sub_questions:
        warnings.append(
            f"The model proposed only {len(unique)} sub-question(s), fewer than the minimum of "
            f"{config.min_sub_questions}; continuing with them."
        )
    subs = [
        SubQuestion(
            id=branch_id(i + 1),
            question_text=stand_alone(sq.question.strip(), question)[:MAX_QUESTION_CHARS],
            priority=round(sq.priority, 3),
            rationale=sq.rationale.strip(),
        )
        for i, sq in enumerate(unique)
    ]
    return Plan(question=question, strategy=(output.strategy or "multi-faceted").strip().lower(), sub_questions=subs), (
        warnings
    )


def as_priority(value: Any, where: str) -> float:
    """A priority as a float from 0 to 1; anything else (a bool, text, NaN) is a PlanError naming `where`.

    None (an emptied cell in an editor's table) is refused as an empty priority.
    """
    if value is None:
        raise PlanError(f"{where}: the priority is empty; enter a number from 0 to 1.")
    if isinstance(value, bool):
        raise PlanError(f"{where}: priority must be a number from 0 to 1, not {value!r}.")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PlanError(f"{where}: priority must be a number from 0 to 1, not {value!r}.") from None
    if not 0.0 <= number <= 1.0 or number != number:
        raise PlanError(f"{where}: priority {number:g} is outside 0-1.")
    return number


def check_plan_size(plan: Plan, config: RunConfig) -> None:
    """Refuse a plan larger than the run's limits: `max_sub_questions` top-level sub-questions and
    `max_total_sub_questions` in all. The message names the limit and what to do."""
    top = sum(1 for sq in plan.sub_questions if sq.parent_id is None)
    if top > config.max_sub_questions:
        raise PlanError(
            f"The plan has {top:,} top-level sub-questions; the limit is {config.max_sub_questions} "
            "(max_sub_questions). Remove some, or raise max_sub_questions for the run."
        )
    total = len(plan.sub_questions)
    if total > config.max_total_sub_questions:
        raise PlanError(
            f"The plan has {total:,} sub-questions; the limit is {config.max_total_sub_questions} "
            "(max_total_sub_questions). Remove some, or raise max_total_sub_questions for the run."
        )


def plan_rows(data: dict[str, Any] | Plan) -> tuple[dict[str, Any], list[Any]]:
    """The plan as a dict and its non-empty 'sub_questions' list; PlanError when it is not one."""
    if isinstance(data, Plan):
        data = data.model_dump()
    if not isinstance(data, dict):
        raise PlanError("The plan must be a JSON object with a 'sub_questions' list.")
    rows = data.get("sub_questions")
    if not isinstance(rows, list):
        raise PlanError("The plan must contain a 'sub_questions' list.")
    if not rows:
        raise PlanError("The plan has no sub-questions; add at least one or run the question flat.")
    return data, rows


def row_text(row: dict[str, Any], where: str) -> str:
    """A row's question text without control characters; PlanError when empty or too long."""
    text = row.get("question_text", row.get("question"))
    if isinstance(text, str):
        text = strip_control_chars(text)
    if not isinstance(text, str) or not text.strip():
        raise PlanError(f"{where}: the question text is empty.")
    if len(text) > MAX_QUESTION_CHARS:
        raise PlanError(f"{where}: the question is longer than {MAX_QUESTION_CHARS} characters.")
    return text


def cleaned_rows(rows: list[Any]) -> list[dict[str, Any]]:
    """Each row checked (an object, its text, priority and id) and cleaned, a missing id filled
    with the first free `sq_NNN`; PlanError naming the first row refused."""
    cleaned: list[dict[str, Any]] = []
    ids: set[str] = set()
    next_index = 1
    for n, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise PlanError(f"Sub-question {n} must be an object with question_text and priority.")
        where = f"Sub-question {n}"
        text = row_text(row, where)
        priority = as_priority(row.get("priority", 0.5), where)
        sq_id = row.get("id")
        if sq_id in (None, ""):
            while branch_id(next_index) in ids or any(r.get("id") == branch_id(next_index) for r in rows):
                next_index += 1
            sq_id = branch_id(next_index)
        if not isinstance(sq_id, str):
            raise PlanError(f"{where}: the id must be text.")
        if sq_id in ids:
            raise PlanError(f"{where}: the id {sq_id!r} is used twice; ids must be unique.")
        ids.add(sq_id)
        cleaned.append(
            {
                "id": sq_id,
                "question_text": text.strip(),
                "priority": priority,
                "rationale": strip_control_chars(str(row.get("rationale") or "")).strip(),
                "parent_id": row.get("parent_id") or None,
                "status": row.get("status") if row.get("status") in ("pending", "skipped") else "pending",
            }
        )
    return cleaned


def set_depths(cleaned: list[dict[str, Any]], max_depth: int) -> None:
    """Give each row its `depth` from its parent links; PlanError for an unknown parent, a cycle, or
    nesting deeper than `max_depth`."""
    by_id = {r["id"]: r for r in cleaned}
    for r in cleaned:
        depth = 0
        seen = {r["id"]}
        parent = r["parent_id"]
        while parent is not None:
            if parent not in by_id:
                raise PlanError(f"{r['id']}: its parent {parent!r} is not in the plan.")
            if parent in seen:
                raise PlanError(f"{r['id']}: parent links form a cycle ({' -> '.join([*seen, parent])}).")
            seen.add(parent)
            depth += 1
            parent = by_id[parent]["parent_id"]
        if depth > max_depth:
            raise PlanError(f"{r['id']}: nested {depth} levels deep; the limit is {max_depth}.")
        r["depth"] = depth


def validate_plan(
    data: dict[str, Any] | Plan, question: str, max_depth: int = MAX_PLAN_DEPTH, *, config: RunConfig | None = None
) -> Plan:
    """Validate a plan edited by a user (CLI JSON file or UI table) and fill missing ids.

    Refuses, with a message naming the row: no sub-questions, empty text, priority not a
    number in 0-1, duplicate ids, unknown parents, cycles, and nesting deeper than `max_depth`;
    with `config`, also more sub-questions than its limits allow (`check_plan_size`). Control and
    bidi characters are removed from the texts.
    """
    data, rows = plan_rows(data)
    cleaned = cleaned_rows(rows)
    set_depths(cleaned, max_depth)
    try:
        subs = [SubQuestion(**r) for r in cleaned]
    except ValidationError as exc:
        raise PlanError(f"The plan is invalid: {exc.errors()[0]['msg']}") from None
    strategy = strip_control_chars(str(data.get("strategy") or "multi-faceted"))
    plan = Plan(question=question, strategy=strategy, sub_questions=subs)
    if config is not None:
        check_plan_size(plan, config)
    return plan


def insert_after_subtree(
    order: list[str], branches: Mapping[str, SubQuestion], parent_id: str, new_ids: list[str]
) -> list[str]:
    """`order` with `new_ids` placed right after `parent_id` and its existing descendants."""
    end = BranchTree(branches, order).subtree_end(order, parent_id)
    return [*order[:end], *new_ids, *order[end:]]


def make_children(
    parent: SubQuestion, questions: list[dict], existing_ids: set[str], iterations: int, min_it: int, max_it: int
) -> list[SubQuestion]:
    """Children of a drill-down: ids parent.1, parent.2 ..., sharing `iterations` by priority."""
    from research_core.planning.budget import clamp, split_by_priority

    shares = split_by_priority(iterations, [float(q.get("priority", 0.5)) for q in questions])
    children = []
    n = 1
    for q, share in zip(questions, shares, strict=True):
        while f"{parent.id}.{n}" in existing_ids:
            n += 1
        cid = f"{parent.id}.{n}"
        existing_ids.add(cid)
        children.append(
            SubQuestion(
                id=cid,
                question_text=strip_control_chars(str(q["question_text"])).strip()[:MAX_QUESTION_CHARS],
                priority=float(q.get("priority", 0.5)),
                rationale=str(q.get("rationale") or f"Drill-down of {parent.id}"),
                depth=parent.depth + 1,
                parent_id=parent.id,
                allocated_iterations=clamp(share, min_it, max_it),
            )
        )
    return children
