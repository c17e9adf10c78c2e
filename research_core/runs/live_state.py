"""A run's state as the user should see it: the checkpoint plus the progress of branch chains.

While branches are being researched as chains (`research_core/research/chain.py`), the steps they
have finished are checkpointed in each chain's own namespace and reach the run's state only when
the chain ends. Everything that shows or totals a run in progress (the live view, History, a
failed or interrupted run's totals) reads it through `live_state`, so a finding is visible as
soon as its step is checkpointed.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from research_core.research.chain import ChainOutput
from research_core.state import merge_branches

_LIST_FIELDS = tuple(k for k in ChainOutput.__annotations__ if k != "branches")


def merge_chain_progress(values: dict[str, Any], snapshot: StateSnapshot) -> dict[str, Any]:
    """`values` with the checkpointed progress of the chains still running in `snapshot` added."""
    merged = dict(values)
    for task in snapshot.tasks:
        if task.result is not None:
            continue  # a finished chain's output is already in the live snapshot's values
        chain = task.state.values if isinstance(task.state, StateSnapshot) else None
        if not chain:
            continue
        merged["branches"] = merge_branches(merged.get("branches"), chain.get("branches"))
        for key in _LIST_FIELDS:
            if chain.get(key):
                merged[key] = [*(merged.get(key) or []), *chain[key]]
    return merged


def live_state(graph: CompiledStateGraph, config: dict[str, Any]) -> tuple[StateSnapshot, dict[str, Any]]:
    """The run's snapshot and its values including the finished steps of running chains."""
    snapshot = graph.get_state(config, subgraphs=True)
    return snapshot, merge_chain_progress(snapshot.values or {}, snapshot)
