"""The graph's state, its input and output schemas, and the reducers of its list fields.

The state holds each branch as a `SubQuestion` record. A checkpoint written before that holds
each branch as the record's dump (a dict): `as_branch` reads either, so every reader of a state
that may come from a checkpoint goes through `branches_of`, and the reducer turns old dicts into
records at the first write.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from research_core.schemas import SubQuestion
from research_core.task_records import ChainTask, RevisionTask, SynthesisTask, Task

# The records a checkpoint may hold: the checkpointer rebuilds these, and only these, as records.
CHECKPOINTED_RECORDS: tuple[type, ...] = (SubQuestion, ChainTask, SynthesisTask, RevisionTask)

BranchUpdate = SubQuestion | Mapping[str, Any] | None


def as_branch(value: SubQuestion | Mapping[str, Any]) -> SubQuestion:
    """A branch as a record, whether stored as one or as its dump (a checkpoint from before records)."""
    return value if isinstance(value, SubQuestion) else SubQuestion.model_validate(value)


def with_fields(branch: SubQuestion | None, fields: Mapping[str, Any]) -> SubQuestion:
    """`branch` with `fields` changed (a new branch when None), validated as a `SubQuestion`.

    A field the record does not have is refused (ValueError), not dropped: a misspelt update fails
    where it is written.
    """
    unknown = sorted(set(fields) - set(SubQuestion.model_fields))
    if unknown:
        raise ValueError(f"not a branch field: {', '.join(unknown)}")
    return SubQuestion.model_validate(fields if branch is None else {**branch.model_dump(), **fields})


def branches_of(state: Mapping[str, Any]) -> dict[str, SubQuestion]:
    """The state's branches as records, in their stored order."""
    return {bid: as_branch(b) for bid, b in (state.get("branches") or {}).items()}


def merge_branches(
    old: Mapping[str, SubQuestion | Mapping[str, Any]] | None, new: Mapping[str, BranchUpdate] | None
) -> dict[str, SubQuestion]:
    """Merge per-branch updates: {id: {field: value}} changes those fields (the result validated as a
    `SubQuestion`), {id: SubQuestion} replaces the branch, {id: None} removes it.

    Parallel branch steps each write their own id, so their updates never collide.
    """
    merged = {bid: as_branch(b) for bid, b in (old or {}).items()}
    for branch_id, fields in (new or {}).items():
        if fields is None:
            merged.pop(branch_id, None)
        elif isinstance(fields, SubQuestion):
            merged[branch_id] = fields
        else:
            merged[branch_id] = with_fields(merged.get(branch_id), fields)
    return merged


def merge_branch_updates(
    old: Mapping[str, Mapping[str, Any]] | None, new: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """Gather per-branch field updates, {id: {field: value}}, later values winning: what a branch
    chain has changed so far, applied to the run's records (`merge_branches`) when it ends."""
    merged = {bid: dict(fields) for bid, fields in (old or {}).items()}
    for branch_id, fields in (new or {}).items():
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
    branches: Annotated[dict[str, SubQuestion], merge_branches]
    branch_order: list[str]
    findings: Annotated[list[dict], operator.add]
    sources: Annotated[list[dict], operator.add]
    costs: Annotated[list[dict], operator.add]
    log: Annotated[list[dict], operator.add]
    warnings: Annotated[list[str], operator.add]
    next_tasks: list[Task]
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
    branches: dict[str, SubQuestion]
    findings: list[dict]
    sources: list[dict]
    costs: list[dict]
    warnings: list[str]
