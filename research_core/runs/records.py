"""The typed run records the store hands out: what History, Compare and the CLI show without a graph.

The runs table keeps a few values as JSON text (the config, the approved plan, the totals, the
LLM settings). The store reads them into these records, so no caller parses a `*_json` column.
A finished run's result is read on its own (`RunStore.result`), because it is large and may be
damaged or from another version, which only the pages that show it should have to handle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel


class RunTotals(BaseModel):
    """What a run spent and gathered: its final figures, or those so far (`partial`) while unfinished."""

    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    llm_calls: int = 0
    iterations: int = 0
    findings: int = 0
    sources: int = 0
    duration_s: float = 0.0
    partial: bool = False

    def to_record(self) -> dict[str, Any]:
        """The totals as stored: `partial` is written only for the figures of an unfinished run."""
        return self.model_dump(exclude=None if self.partial else {"partial"})


@dataclass(frozen=True)
class RunSummary:
    """One run as History and `runs` list it (no config, plan or result)."""

    id: str
    question: str
    mode: str | None
    status: str
    template: str | None
    created_at: str | None
    updated_at: str | None
    totals: RunTotals | None
    error: str | None
    parent_run_id: str | None
    owner_pid: int | None
    owner_token: str | None


@dataclass(frozen=True)
class RunRecord(RunSummary):
    """A run's whole record: its summary plus what it was started with and how long it has run.

    `config` is the run's limits as stored (a `RunConfig` dump, possibly from an older Arbor);
    `plan` the plan supplied when it was created; `llm` the LLM settings it started with (never a
    key), None for runs recorded without them; `active_s` its research time so far.
    """

    config: dict[str, Any]
    plan: dict[str, Any] | None
    llm: dict[str, Any] | None
    active_s: float
    has_result: bool
