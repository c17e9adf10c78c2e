"""The typed run records the store hands out: what History, Compare and the CLI show without a graph.

The runs table keeps a few values as JSON text (the config, the approved plan, the totals, the
LLM settings). The store reads them into these records, so no caller parses a `*_json` column.
A finished run's result (`RunResult`) is read on its own (`RunStore.result`), because it is large
and may be damaged or from another version, which only the pages that show it should have to
handle; it is read with the validation context `rows.STORED`, so a result stored by an older
Arbor (dict rows lacking newer fields) opens as typed rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from research_core.runs.rows import BranchRow
from research_core.schemas import CostTotals, LogEntry, Mode, RunStatus, Source, SynthesisSummary


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
    """One run as History and `runs` list it (no config, plan or result).

    `owner` is the account that started it (None: the local user) and `visibility` private or team
    as recorded (None for runs recorded without one); `accounts.permissions` reads both.
    """

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
    owner: str | None = field(default=None, kw_only=True)
    visibility: str | None = field(default=None, kw_only=True)


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


class RunResult(BaseModel):
    """Everything a finished run produced; the JSON export is exactly this (its dump, once, at the edge).

    `sub_questions` are the run's branches as typed rows (`rows.BranchRow`), in plan-tree order,
    each with its findings and its answer's citations numbered as the report's.
    """

    run_id: str
    question: str
    status: RunStatus
    mode: Mode
    final_answer: str
    hierarchical_synthesis: str | None
    synthesis: SynthesisSummary
    sub_questions: list[BranchRow]
    sources: list[Source]
    costs: CostTotals
    warnings: list[str]
    coverage: dict | None = None
    log: list[LogEntry]
    started_at: str
    finished_at: str
    duration_s: float
    # the run's settings (RunConfig), those left to its model included; None in results of older versions
    config: dict | None = None
