"""What a run looks like right now, for the CLI and the UI: its record and its live checkpoint together."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.types import StateSnapshot

from research_core.llm.costs import summarize_costs
from research_core.runs.records import RunRecord
from research_core.runs.rows import BranchRow, branch_rows, findings_of
from research_core.schemas import CostTotals, Finding, LogEntry, Source
from research_core.state import branches_of
from research_core.text.sanitize import strip_url_secrets_in_text
from research_core.tree import BranchTree


@dataclass
class RunSnapshot:
    """What a run looks like right now, for the CLI and the UI.

    `branches` are typed rows (`rows.BranchRow`) in plan-tree order, each with its findings, their
    answers still citing with the engine's markers; `findings` are all the run's findings, in order;
    `sources` and `log` are records too. The open gate's payload (`pending`), the `config` and the
    progress `events` stay as the engine and the feed give them.
    """

    run_id: str
    question: str
    status: str
    mode: str | None
    pending: dict[str, Any] | None
    branches: list[BranchRow]
    findings: list[Finding]
    sources: list[Source]
    costs: CostTotals
    log: list[LogEntry]
    warnings: list[str]
    final_answer: str | None
    error: str | None
    config: dict[str, Any]
    created_at: str | None = None
    active: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    # when the newest step shown here was checkpointed (ISO time; None before the first): how fresh the view is
    progress_at: str | None = None


def newest_checkpoint_time(state: StateSnapshot) -> str | None:
    """The time of the newest checkpoint in a live state: the run's own, or a running chain's."""
    times = [state.created_at] + [
        task.state.created_at for task in state.tasks if task.result is None and isinstance(task.state, StateSnapshot)
    ]
    present = [t for t in times if t]
    return max(present) if present else None


def shown_status(record_status: str, *, active: bool, owner_is_alive: bool) -> str:
    """The status to show: a run recorded as running whose driver is gone is `interrupted` (resumable)."""
    if record_status == "running" and not active and not owner_is_alive:
        return "interrupted"
    return record_status


def build_snapshot(
    record: RunRecord,
    state: StateSnapshot,
    values: dict[str, Any],
    *,
    status: str,
    active: bool,
    events: list[dict[str, Any]],
) -> RunSnapshot:
    """The snapshot of a run from its record and live state (`values` include the chains' progress).

    Branches come in plan-tree order; the open gate's payload is `pending`; warnings are listed
    once each; the stored error is shown without credentials in URLs.
    """
    branches = branches_of(values)
    order = BranchTree(branches, values.get("branch_order", [])).depth_first()
    findings = findings_of(values)
    return RunSnapshot(
        run_id=record.id,
        question=record.question,
        status=status,
        mode=values.get("mode") or record.mode,
        pending=state.interrupts[0].value if state.interrupts else None,
        branches=branch_rows(branches, order, findings),
        findings=findings,
        sources=[Source.model_validate(s) for s in values.get("sources", [])],
        costs=summarize_costs(values.get("costs", [])),
        log=[LogEntry.model_validate(e) for e in values.get("log", [])],
        warnings=list(dict.fromkeys(values.get("warnings", []))),
        final_answer=values.get("final_answer"),
        error=strip_url_secrets_in_text(record.error) if record.error else None,
        config=record.config,
        created_at=record.created_at,
        active=active,
        events=events,
        progress_at=newest_checkpoint_time(state),
    )
