"""A branch re-run's first checkpoint: read from the finished run's state, written as the new run's start."""

from __future__ import annotations

from typing import Any

from research_core.db import open_checkpointer
from research_core.graph import build_graph
from research_core.planning.plan import PlanError
from research_core.runs.drive import graph_config
from research_core.runs.errors import RunError
from research_core.runs.rerun import rerun_state
from research_core.storage.location import StoreLocation


def rerun_values(
    location: StoreLocation, run_id: str, branch_id: str, *, question_text: str | None, priority: Any
) -> dict[str, Any]:
    """The starting state of a re-run of `run_id`'s `branch_id` (`rerun.rerun_state`); a refused edit is a RunError."""
    with open_checkpointer(location) as saver:
        old = build_graph(saver).get_state(graph_config(run_id)).values
    try:
        return rerun_state(old, branch_id, question_text=question_text, priority=priority)
    except PlanError as exc:
        raise RunError(str(exc)) from None


def seed_rerun(location: StoreLocation, new_id: str, values: dict[str, Any]) -> None:
    """Write `values` as the new run's checkpoint, as if its budget had just been allocated: driving it researches."""
    with open_checkpointer(location) as saver:
        build_graph(saver).update_state(graph_config(new_id), values, as_node="allocate_budget")
