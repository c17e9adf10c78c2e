"""One pass of `coordinate`: a working copy of the branches and order, and what the pass returns.

Each step of the pass (gates, pivots, caps, scheduling, the revision hold) reads and changes the
same `CoordinationPass`, so a later step sees what an earlier one decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from research_core.configuration import RunConfig
from research_core.schemas import LogEntry, SubQuestion
from research_core.state import ResearchState, branches_of, with_fields
from research_core.task_records import Task


def coordinate_log(message: str, kind: str = "decision", branch: str | None = None, reasoning: str = "") -> dict:
    """A log entry written by `coordinate`."""
    return LogEntry(node="coordinate", kind=kind, branch=branch, message=message, reasoning=reasoning).model_dump()


@dataclass
class CoordinationPass:
    """One pass of `coordinate`: the branches and order as changed so far, and what it will return.

    `change` records a branch update both in the working copy (so later steps see it) and in
    `updates` (what the pass returns to the state).
    """

    config: RunConfig
    branches: dict[str, SubQuestion]
    order: list[str]
    stop: bool
    acknowledged: list[str]
    updates: dict[str, dict] = field(default_factory=dict)
    log: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: ResearchState, config: RunConfig) -> CoordinationPass:
        """A pass over copies of the state's branches and order, under the run's `config`."""
        return cls(
            config=config,
            branches=branches_of(state),
            order=list(state["branch_order"]),
            stop=bool(state.get("stop_requested")),
            acknowledged=list(state.get("acknowledged") or []),
        )

    def change(self, bid: str, fields: dict) -> None:
        """Update branch `bid` with `fields` (a new branch: all of its fields), in the working copy and
        in the returned updates."""
        self.updates.setdefault(bid, {}).update(fields)
        self.branches[bid] = with_fields(self.branches.get(bid), fields)

    def set_order(self, order: list[str]) -> None:
        """Replace the branch order, in the working copy and in the returned state."""
        self.order = order
        self.extra["branch_order"] = order

    def revisions_done(self, state: ResearchState) -> int:
        """Plan revisions answered so far, this pass's included."""
        return int(self.extra.get("revisions_done", state.get("revisions_done") or 0))

    def state_update(self, tasks: list[Task]) -> dict:
        """What the pass returns to the run's state, with the tasks it scheduled."""
        return {
            "branches": self.updates,
            "next_tasks": tasks,
            "acknowledged": self.acknowledged,
            "stop_requested": self.stop,
            "log": self.log,
            "warnings": self.warnings,
            **self.extra,
        }
