"""Runs as the History and Compare pages list them: the history table, picker labels and costs.

Pure functions over the run records of `Runner.runs()` (dicts), so both pages name a run the
same way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ui import widgets


def cost_of(row: Mapping[str, Any]) -> float | None:
    """The run's total cost from its stored totals (None when missing or unreadable)."""
    try:
        totals = json.loads(row.get("totals_json") or "{}")
    except ValueError:
        return None
    value = totals.get("cost_usd")
    return float(value) if value is not None else None


def history_frame(runs: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The History table: date, question, mode, status, cost, run id and the run it re-runs a branch of."""
    return pd.DataFrame(
        [
            {
                "date": widgets.format_time(r.get("created_at")),
                "question": r.get("question") or "",
                "mode": r.get("mode") or "",
                "status": widgets.status_label(r.get("status") or ""),
                "cost": cost_of(r),
                "id": r["id"],
                "re-run of": r.get("parent_run_id") or "",
            }
            for r in runs
        ]
    )


def run_label(row: Mapping[str, Any]) -> str:
    """How a run appears in the History picker: date, question, status, and enough of the id to tell twins apart."""
    rerun = " · branch re-run" if row.get("parent_run_id") else ""
    return (
        f"{widgets.format_time(row.get('created_at'))} · {widgets.shorten(row.get('question') or '', 80)} · "
        f"{widgets.status_label(row['status'])}{rerun} · …{row['id'][-6:]}"
    )


def compare_label(row: Mapping[str, Any], width: int) -> str:
    """How a run appears when picking runs to compare: date, mode, question cut to `width`, end of the id."""
    return (
        f"{widgets.format_time(row.get('created_at'))} · {row.get('mode') or '–'} · "
        f"{widgets.shorten(row.get('question') or '', width)} · …{row['id'][-6:]}"
    )
