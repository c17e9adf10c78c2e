"""Runs as the History and Compare pages list them: the history table, picker labels and costs.

Pure functions over the run records of `Runner.runs()` (`RunSummary`), so both pages name a run
the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from research_core.accounts.permissions import visibility_of
from research_core.accounts.records import LOCAL_NAME
from research_core.runs.records import RunSummary
from ui import widgets


def cost_of(row: RunSummary) -> float | None:
    """The run's total cost from its stored totals (None when missing or unreadable)."""
    return float(row.totals.cost_usd) if row.totals is not None else None


def history_frame(runs: Sequence[RunSummary], *, with_owner: bool = False) -> pd.DataFrame:
    """The History table: date, question, mode, status, cost, run id and the run it re-runs a branch of.

    `with_owner` (a workbench with accounts) adds whose each run is and whether it is shared.
    """
    rows = []
    for r in runs:
        row = {
            "date": widgets.format_time(r.created_at),
            "question": r.question or "",
            "mode": r.mode or "",
            "status": widgets.status_label(r.status or ""),
            "cost": cost_of(r),
            "id": r.id,
            "re-run of": r.parent_run_id or "",
        }
        if with_owner:
            row["owner"] = r.owner or LOCAL_NAME
            row["shared"] = visibility_of(r) == "team"
        rows.append(row)
    return pd.DataFrame(rows)


def run_label(row: RunSummary) -> str:
    """How a run appears in the History picker: date, question, status, and enough of the id to tell twins apart."""
    rerun = " · branch re-run" if row.parent_run_id else ""
    return (
        f"{widgets.format_time(row.created_at)} · {widgets.shorten(row.question or '', 80)} · "
        f"{widgets.status_label(row.status)}{rerun} · …{row.id[-6:]}"
    )


def compare_label(row: RunSummary, width: int) -> str:
    """How a run appears when picking runs to compare: date, mode, question cut to `width`, end of the id."""
    return (
        f"{widgets.format_time(row.created_at)} · {row.mode or '–'} · "
        f"{widgets.shorten(row.question or '', width)} · …{row.id[-6:]}"
    )
