"""Runs as History and Compare list them: costs, the history table, picker labels."""

from __future__ import annotations

import dataclasses
import math

from research_core.runs.records import RunSummary
from research_core.runs.store import read_totals
from ui.run_list import compare_label, cost_of, history_frame, run_label

ROW = RunSummary(
    id="run_20250101_abcdef123456",
    created_at="2025-01-01T09:30:12+00:00",
    updated_at=None,
    question="Compare SQLite and PostgreSQL for small web apps",
    mode="hierarchical",
    status="completed",
    template=None,
    totals=read_totals("run_20250101_abcdef123456", '{"cost_usd": 0.0123}'),
    error=None,
    parent_run_id=None,
    owner_pid=None,
    owner_token=None,
)


def _with(**changes) -> RunSummary:
    return dataclasses.replace(ROW, **changes)


def test_cost_comes_from_the_stored_totals() -> None:
    assert cost_of(ROW) == 0.0123
    assert cost_of(_with(totals=read_totals("r", None))) is None
    assert cost_of(_with(totals=read_totals("r", "{not json"))) is None
    assert cost_of(_with(totals=read_totals("r", '{"cost_usd": 0}'))) == 0.0


def test_history_frame_has_one_row_per_run() -> None:
    rerun = _with(id="run_2", parent_run_id=ROW.id, mode=None, totals=None)
    frame = history_frame([ROW, rerun])
    assert list(frame.columns) == ["date", "question", "mode", "status", "cost", "id", "re-run of"]
    first, second = frame.to_dict("records")
    assert first["date"] == "2025-01-01 09:30"
    assert first["status"] == "Completed"
    assert first["re-run of"] == ""
    assert second["mode"] == "" and second["re-run of"] == ROW.id
    assert math.isnan(second["cost"])


def test_run_label_tells_twins_and_reruns_apart() -> None:
    assert run_label(ROW) == (
        "2025-01-01 09:30 · Compare SQLite and PostgreSQL for small web apps · Completed · …123456"
    )
    assert " · branch re-run · " in run_label(_with(parent_run_id="run_1"))


def test_compare_label_cuts_the_question_to_the_width() -> None:
    assert compare_label(ROW, 70) == (
        "2025-01-01 09:30 · hierarchical · Compare SQLite and PostgreSQL for small web apps · …123456"
    )
    assert compare_label(_with(mode=None), 20) == "2025-01-01 09:30 · – · Compare SQLite and … · …123456"
