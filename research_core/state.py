"""The graph's state, its input and output schemas, and the reducers of its list fields."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def merge_branches(old: dict[str, dict] | None, new: dict[str, dict] | None) -> dict[str, dict]:
    """Merge per-branch field updates: {id: {field: value}}; a value of None removes the branch.

    Parallel branch steps each write their own id, so their updates never collide.
    """
    merged = dict(old or {})
    for branch_id, fields in (new or {}).items():
        if fields is None:
            merged.pop(branch_id, None)
        else:
            merged[branch_id] = {**merged.get(branch_id, {}), **fields}
    return merged


class ResearchInput(TypedDict, total=False):
    """What a run starts from."""

    run_id: str
    question: str
    config: dict[str, Any]
    initial_plan: dict[str, Any] | None


class ResearchState(TypedDict, total=False):
    """The whole state of a run, checkpointed after every step."""

    run_id: str
    question: str
    config: dict[str, Any]
    initial_plan: dict[str, Any] | None
    mode: str
    strategy: str | None
    branches: Annotated[dict[str, dict], merge_branches]
    branch_order: list[str]
    findings: Annotated[list[dict], operator.add]
    sources: Annotated[list[dict], operator.add]
    costs: Annotated[list[dict], operator.add]
    log: Annotated[list[dict], operator.add]
    warnings: Annotated[list[str], operator.add]
    next_tasks: list[dict]
    acknowledged: list[str]
    stop_requested: bool
    budget_exhausted_logged: bool
    iterations_exhausted_logged: bool
    revisions_done: int
    revision_pending: dict[str, Any] | None
    revised_after: list[str]
    coverage: dict[str, Any] | None
    coverage_rounds: int
    final_answer: str | None
    report_grounding: dict[str, int] | None
    status: str


class ResearchOutput(TypedDict, total=False):
    """What a finished run hands back (the rest stays in the checkpoint)."""

    final_answer: str | None
    status: str
    branches: dict[str, dict]
    findings: list[dict]
    sources: list[dict]
    costs: list[dict]
    warnings: list[str]
