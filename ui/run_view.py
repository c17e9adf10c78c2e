"""The run view: progress metrics, the live tree, per-branch details, charts and the log.

Drawn from a `RunSnapshot` only, so the Run page can redraw it from a polling fragment while the
runner's thread works, and the Compare page can reuse pieces of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st
from pydantic import BaseModel

from research_core.runs.snapshot import RunSnapshot
from research_core.schemas import FINAL_STATUSES, LogEntry
from research_core.text.sanitize import redact_data
from ui import charts, widgets

# How often the Run page's live view reads the run again (its polling fragment's `run_every`).
POLL_SECONDS = 0.5

# What a page shows of a snapshot; the open gate's payload stays as is, because answers are built
# from it and compared with it (its texts are redacted where they are drawn).
_SHOWN_FIELDS = ("question", "branches", "findings", "sources", "log", "warnings", "final_answer", "error", "events")


def redacted(value: Any) -> Any:
    """`value` with key-like strings redacted: a record (or a list of them) is redacted in its dump and
    read back as the same record, anything else (JSON-like data) as it is."""
    if isinstance(value, BaseModel):
        return type(value).model_validate(redact_data(value.model_dump()))
    if isinstance(value, list):
        return [redacted(v) for v in value]
    return redact_data(value)


def shown_snapshot(snap: RunSnapshot) -> RunSnapshot:
    """`snap` with key-like strings redacted from everything a page shows, as the downloads do."""
    return dataclasses.replace(snap, **{name: redacted(getattr(snap, name)) for name in _SHOWN_FIELDS})


def progress_values(snap: RunSnapshot) -> list[tuple[str, str]]:
    """The headline numbers of a run in progress."""
    branches = snap.branches
    done = sum(1 for b in branches if b.status in FINAL_STATUSES)
    used = sum(b.iteration_count for b in branches)
    allocated = sum(b.allocated_iterations for b in branches)
    tokens = snap.costs.tokens_in + snap.costs.tokens_out
    read = sum(b.pages_read for b in branches)
    tried = read + sum(b.pages_failed for b in branches)
    return [
        ("Branches done", f"{done} / {len(branches)}" if branches else "–"),
        ("Iterations", f"{used} / {allocated}" if allocated else str(used)),
        ("Findings", str(len(snap.findings))),
        ("Sources", str(len({s.id for s in snap.sources}))),
        ("Pages read", f"{read} / {tried}" if tried else "–"),
        ("Tokens", f"{tokens:,}"),
        ("Cost (USD)", widgets.usd_amount(snap.costs.total_usd)),
    ]


def activity_line(snap: RunSnapshot) -> str:
    """What the run is doing right now, from its latest event or log entry."""
    if snap.events:
        event = snap.events[-1]
        kind = str(event.get("type", "")).replace("_", " ")
        branch = event.get("branch")
        iteration = event.get("iteration")
        where = f" · {branch}" if branch else ""
        where += f" · iteration {iteration}" if iteration else ""
        return f"{kind}{where}"
    if snap.log:
        return snap.log[-1].message
    return "starting"


def _log_frame(log: list[LogEntry]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "time": e.timestamp[11:19],
                "step": e.node,
                "branch": e.branch or "",
                "kind": e.kind,
                "message": e.message,
                "reasoning": e.reasoning,
            }
            for e in log
        ],
        columns=["time", "step", "branch", "kind", "message", "reasoning"],
    )


def run_panel(snap: RunSnapshot, *, key_prefix: str = "run") -> None:
    """Metrics, the tree, warnings, and tabs with branches, charts and the log."""
    overview(snap, key_prefix=key_prefix)
    details(snap, key_prefix=key_prefix)


def overview(snap: RunSnapshot, *, key_prefix: str = "run") -> None:
    """Metrics, warnings and the research tree."""
    widgets.totals_row(progress_values(snap))
    widgets.show_warnings(snap.warnings)
    if snap.branches:
        st.plotly_chart(
            charts.tree_figure(snap.question, snap.branches),
            key=f"{key_prefix}_tree",
            config={"displaylogo": False, "displayModeBar": False},
        )
        charts.tree_legend()
    else:
        st.caption("The research tree appears once the plan is approved.")


def details(snap: RunSnapshot, *, key_prefix: str = "run") -> None:
    """Tabs: each branch in detail, budget and cost charts, and the log."""
    numbers = widgets.branch_numbers(snap.branches)
    numbering = widgets.citation_numbering(snap.branches)
    sources_by_id = {s.id: s for s in snap.sources}

    branches_tab, charts_tab, log_tab = st.tabs(["Branches", "Budget and cost", "Log"])
    with branches_tab:
        if not snap.branches:
            st.caption("No branches yet.")
        for b in snap.branches:
            widgets.branch_details(
                b,
                numbers.get(b.id, b.id),
                sources_by_id,
                numbering,
                snap.log,
                key=f"{key_prefix}_branch_{b.id}",
            )
    with charts_tab:
        charts.run_charts(snap.branches, snap.costs.entries, key_prefix)
    with log_tab:
        if snap.log:
            st.dataframe(_log_frame(snap.log), hide_index=True, width="stretch", height=320)
        else:
            st.caption("Nothing logged yet.")


def model_start_status(messages: Sequence[str]) -> None:
    """The latest progress messages of the embedded model's start, in an expanded status box."""
    with st.status("Starting the embedded model…", expanded=True):
        for message in messages[-6:]:
            st.caption(widgets.esc(message))


# ---- the model's reasons at the gates ------------------------------------------------------------


def depth_reasoning(log: list[LogEntry], branch_id: str | None) -> str:
    """Why the model judged a branch's depth as it did (its latest depth assessment), or ''."""
    for entry in reversed(log):
        if entry.branch == branch_id and entry.kind == "drill_down" and entry.reasoning:
            return entry.reasoning
    return ""


def revision_reasoning(log: list[LogEntry]) -> str:
    """The reviser's reasons for its latest proposed plan change, or ''."""
    for entry in reversed(log):
        if entry.node == "revise_plan" and entry.message.startswith("Proposed revision"):
            return entry.reasoning
    return ""
