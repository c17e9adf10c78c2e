"""The run store hands out typed records (research_core/runs/store.py, runs/records.py)."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from pydantic import ValidationError

from research_core.runs.records import RunRecord, RunSummary, RunTotals
from research_core.runs.store import RunOwnedElsewhere, RunStore

CONFIG = {"mode": "hierarchical", "template": "comparison", "max_iterations": 12}
LLM = {"provider": "openai", "model": "gpt-4o-mini", "base_url": "http://localhost:1/v1"}


@pytest.fixture
def store(db):
    s = RunStore(db)
    yield s
    s.close()


def test_a_new_run_reads_back_with_what_it_was_started_with(store):
    store.create("r1", "Compare A and B", CONFIG, parent_run_id="r0", llm=LLM)
    record = store.get("r1")
    assert isinstance(record, RunRecord)
    assert (record.id, record.question, record.status, record.mode, record.template) == (
        "r1",
        "Compare A and B",
        "created",
        "hierarchical",
        "comparison",
    )
    assert record.config == CONFIG and record.llm == LLM and record.parent_run_id == "r0"
    assert record.plan is None and record.totals is None and not record.has_result and record.active_s == 0.0


def test_updates_show_in_the_record_and_the_list(store):
    store.create("r1", "Q1", CONFIG)
    store.create("r2", "Q2", CONFIG)
    plan = {"question": "Q2", "sub_questions": [{"id": "sq_001"}]}
    totals = RunTotals(cost_usd=0.0123, llm_calls=4, partial=True)
    store.update("r2", status="failed", error="The LLM timed out.", plan_json=plan, totals_json=totals.to_record())
    assert store.add_active_seconds("r2", 2.5) == 2.5 and store.add_active_seconds("r2", -1) == 2.5
    record = store.get("r2")
    assert record.plan == plan and record.totals == totals and record.active_s == 2.5
    assert record.error == "The LLM timed out."
    rows = store.list()
    assert all(isinstance(r, RunSummary) and not isinstance(r, RunRecord) for r in rows)
    assert [r.id for r in rows] == ["r2", "r1"]  # newest first
    assert rows[0].totals.cost_usd == 0.0123 and rows[0].status == "failed" and rows[1].totals is None


def test_unreadable_stored_totals_or_llm_settings_are_ignored_not_fatal(store, caplog):
    caplog.set_level(logging.WARNING)
    store.create("r1", "Q", CONFIG)
    store.update("r1", totals_json="{not json", llm_json="[1, 2]")
    record = store.get("r1")
    assert record.totals is None and record.llm is None  # History still lists the run
    assert store.list()[0].totals is None
    assert "unreadable stored totals" in caplog.text


def test_a_damaged_result_is_reported_when_read_not_when_listing(store):
    store.create("r1", "Q", CONFIG)
    assert store.result("r1") is None and store.result("missing") is None
    store.update("r1", result_json='{"run_id": "r1"}')
    assert store.get("r1").has_result and store.list()[0].id == "r1"
    with pytest.raises(ValidationError):
        store.result("r1")


def test_a_run_driven_by_a_live_owner_is_neither_claimed_nor_deleted(store):
    store.create("r1", "Q", CONFIG)
    assert store.claim("r1", 111, "t1", lambda pid, token: True) is None
    record = store.get("r1")
    assert (record.status, record.owner_pid, record.owner_token) == ("running", 111, "t1")
    assert store.claim("r1", 222, "t2", lambda pid, token: True) == 111  # refused: 111 drives it
    with pytest.raises(RunOwnedElsewhere) as caught:
        store.delete("r1", lambda pid, token: True)
    assert caught.value.pid == 111 and store.get("r1") is not None
    assert store.claim("r1", 222, "t2", lambda pid, token: False) is None  # 111 is gone: taken over
    assert store.delete("r1", lambda pid, token: pid != 222 and token != "t2") and store.get("r1") is None
    assert not store.delete("r1")


def test_of_many_processes_taking_over_one_run_at_once_exactly_one_wins(db):
    first = RunStore(db)
    first.create("r1", "Q", CONFIG)
    first.claim("r1", 999, "dead", lambda pid, token: True)
    stores = [RunStore(db) for _ in range(6)]
    start = threading.Barrier(len(stores))

    def alive(pid: int | None, token: str | None) -> bool:
        time.sleep(0.05)  # a slow check: without the row locked, every claimant would see 999 dead and write
        return pid != 999

    def claim(i: int) -> int | None:
        start.wait()
        return stores[i].claim("r1", 1000 + i, f"t{i}", alive)

    with ThreadPoolExecutor(len(stores)) as pool:
        outcomes = list(pool.map(claim, range(len(stores))))
    winners = [1000 + i for i, other in enumerate(outcomes) if other is None]
    assert len(winners) == 1 and all(other == winners[0] for other in outcomes if other is not None)
    assert stores[0].get("r1").owner_pid == winners[0]
    for s in [first, *stores]:
        s.close()


# The runs table as Arbor made it with sqlite-utils before the store moved to SQLAlchemy.
SQLITE_UTILS_RUNS = """
CREATE TABLE "runs" ("id" TEXT PRIMARY KEY, "question" TEXT, "mode" TEXT, "status" TEXT, "template" TEXT,
   "created_at" TEXT, "updated_at" TEXT, "config_json" TEXT, "plan_json" TEXT, "totals_json" TEXT,
   "result_json" TEXT, "error" TEXT, "parent_run_id" TEXT, "owner_pid" INTEGER, "owner_token" TEXT,
   "llm_json" TEXT, "active_s" REAL);
CREATE INDEX "idx_runs_created_at" ON "runs" ("created_at");
"""
# Columns added since, for the requests of a team installation (a stop, a queued gate answer).
TEAM_COLUMNS = [("stop_requested_at", "TEXT", 0), ("queued_answer_json", "TEXT", 0)]


# And the run's owner and visibility (accounts), both NULL in old rows.
ACCOUNT_COLUMNS = [("owner", "TEXT", 0), ("visibility", "TEXT", 0)]
NEWER_COLUMNS = TEAM_COLUMNS + ACCOUNT_COLUMNS


def test_a_database_made_by_the_sqlite_utils_store_opens_with_only_the_newer_columns_added(tmp_path):
    db = tmp_path / "arbor.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(SQLITE_UTILS_RUNS)
        for run_id in ("old-1", "old-2"):  # created in the same second: insertion order decides
            conn.execute(
                "insert into runs (id, question, mode, status, template, created_at, updated_at, config_json, "
                "active_s) values (?, 'Q', 'auto', 'completed', 'general', '2025-01-01T00:00:00+00:00', "
                "'2025-01-01T00:00:00+00:00', ?, 1.5)",
                [run_id, json.dumps(CONFIG)],
            )
        columns_before = [(r[1], r[2], r[5]) for r in conn.execute("PRAGMA table_info(runs)")]
        indexes_before = conn.execute("select sql from sqlite_master where type = 'index' order by name").fetchall()
    store = RunStore(db)
    assert [r.id for r in store.list()] == ["old-2", "old-1"]
    assert (store.get("old-1").owner, store.get("old-1").visibility) == (None, None)  # the local user's, as before
    assert store.get("old-1").active_s == 1.5 and store.add_active_seconds("old-1", 1) == 2.5
    store.create("new", "Q", CONFIG)
    assert store.delete("old-2") and [r.id for r in store.list()] == ["new", "old-1"]
    store.close()
    with sqlite3.connect(db) as conn:
        assert [(r[1], r[2], r[5]) for r in conn.execute("PRAGMA table_info(runs)")] == columns_before + NEWER_COLUMNS
        indexes = conn.execute("select sql from sqlite_master where type = 'index' order by name").fetchall()
        assert indexes == indexes_before
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_new_sqlite_database_gets_the_tables_the_sqlite_utils_store_made_and_the_newer_columns(tmp_path):
    RunStore(tmp_path / "new.db").close()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        conn.executescript(SQLITE_UTILS_RUNS)
    columns = {}
    for name in ("new.db", "old.db"):
        with sqlite3.connect(tmp_path / name) as conn:
            columns[name] = [(r[1], r[2], r[5]) for r in conn.execute("PRAGMA table_info(runs)")]
            indexes = [r[1] for r in conn.execute("PRAGMA index_list(runs)") if r[3] == "c"]
            assert indexes == ["idx_runs_created_at"]
    assert columns["new.db"] == columns["old.db"] + NEWER_COLUMNS
