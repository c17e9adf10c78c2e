"""Concurrent runs on one database: two threads of one Runner and a CLI subprocess at once.

All must finish, nothing may mix (each run's findings, sources and costs name only its own
branches, and its findings come from its own question), and the database must stay intact.
"""

from __future__ import annotations

import sqlite3
import threading

import pytest

from research_core.runs.errors import RunError
from research_core.runs.runner import Runner
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import CLIMATE_QUESTION, index_documents, spawn_cli, wait_for

pytestmark = pytest.mark.timeout(180)

THREAD_QUESTIONS = [
    "Compare React, Vue, and Angular for building web applications",
    "How does machine learning work, what are its applications in healthcare, and what are the ethical concerns?",
]


def integrity(db) -> str:
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def assert_not_mixed(runner: Runner, run_id: str, question: str, others: list[str]) -> None:
    snap = runner.snapshot(run_id)
    assert snap.status == "completed", (run_id, snap.status, snap.error)
    assert snap.question == question
    own = {b.id for b in snap.branches}
    assert own and all(question[:60] in b.question_text for b in snap.branches)
    assert snap.findings
    own_sources = {s.id: s for s in snap.sources}
    for f in snap.findings:
        assert f.sub_question_id in own
        # each finding quotes a source this run found, and that source's passage holds the quote
        assert f.source_ids and all(sid in own_sources for sid in f.source_ids), f
        assert " ".join(f.quote.split()) in " ".join(own_sources[f.source_ids[0]].snippet.split())
    assert not any(o[:2] == question[:2] for o in others)
    assert all(s.sub_question_id in own for s in snap.sources)
    assert all(e.branch is None or e.branch in own for e in snap.costs.entries)
    result = runner.result(run_id)
    assert result is not None and result.question == question


@pytest.mark.slow
def test_two_threads_and_a_cli_process_share_one_database(tmp_path):
    db = tmp_path / "arbor.db"
    index_documents(db, tmp_path / "docs")
    with serve(ScriptedLLM(latency_s=0.1)) as (url, _):
        runner = make_runner(tmp_path, url, backends=[FixtureSearch()])  # creates the runs table first
        assert runner.db_path == db
        cli = spawn_cli(["run", CLIMATE_QUESTION, "--auto", "--mode", "hierarchical"], db, url, "library")
        wait_for(lambda: runner.runs(), 60, "the CLI's run to start")  # so all three overlap
        barrier = threading.Barrier(2)
        ids: dict[str, str] = {}
        errors: list[BaseException] = []

        def go(question: str) -> None:
            try:
                barrier.wait()
                snap = runner.start(question, config(auto_approve=True, mode="hierarchical", parallel=2))
                ids[question] = snap.run_id
            except BaseException as exc:  # surfaced below
                errors.append(exc)

        threads = [threading.Thread(target=go, args=(q,)) for q in THREAD_QUESTIONS]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        _, err = cli.communicate(timeout=120)
    assert not errors, errors
    assert cli.returncode == 0, err
    cli_id = err.split("run id ")[1].split()[0]
    questions = [*THREAD_QUESTIONS, CLIMATE_QUESTION]
    all_ids = {**ids, CLIMATE_QUESTION: cli_id}
    assert len(set(all_ids.values())) == 3
    for q in questions:
        assert_not_mixed(runner, all_ids[q], q, [o for o in questions if o != q])
    assert {r.id for r in runner.runs()} == set(all_ids.values())
    assert all(r.status == "completed" for r in runner.runs())
    assert integrity(db) == "ok"


def test_two_runners_on_one_file_in_background_threads(tmp_path):
    with serve(ScriptedLLM(latency_s=0.02)) as (url, _):
        first = make_runner(tmp_path, url, backends=[FixtureSearch()])
        second = make_runner(tmp_path, url, backends=[FixtureSearch()])
        a = first.start_background(THREAD_QUESTIONS[0], config(auto_approve=True, mode="hierarchical"))
        b = second.start_background(THREAD_QUESTIONS[1], config(auto_approve=True, mode="hierarchical"))
        first.wait(a, 90)
        second.wait(b, 90)
    assert_not_mixed(first, a, THREAD_QUESTIONS[0], [THREAD_QUESTIONS[1]])
    assert_not_mixed(second, b, THREAD_QUESTIONS[1], [THREAD_QUESTIONS[0]])
    assert integrity(tmp_path / "arbor.db") == "ok"


def test_a_run_is_never_driven_twice_at_once(tmp_path):
    with serve(ScriptedLLM(latency_s=0.2)) as (url, script):
        runner = make_runner(tmp_path, url, backends=[FixtureSearch()])
        run_id = runner.start_background(THREAD_QUESTIONS[0], config(auto_approve=True, mode="hierarchical"))
        wait_for(lambda: runner.is_active(run_id), 10, "the run to start")
        with pytest.raises(RunError, match="already running"):
            runner.resume_background(run_id)
        with pytest.raises(RunError, match="already running"):
            runner.resume(run_id)
        snap = runner.wait(run_id, 90)
    assert snap.status == "completed", snap.error
    assert script.count("decompose") == 1  # driven once
    assert_not_mixed(runner, run_id, THREAD_QUESTIONS[0], [])


def test_two_runners_of_one_process_never_drive_the_same_run(tmp_path):
    """The workbench keeps one Runner per settings; only one of them may drive a run at a time."""
    with serve(ScriptedLLM(latency_s=0.2)) as (url, script):
        first = make_runner(tmp_path, url, backends=[FixtureSearch()])
        second = make_runner(tmp_path, url, backends=[FixtureSearch()])
        run_id = first.start_background(THREAD_QUESTIONS[0], config(auto_approve=True, mode="hierarchical"))
        # no waiting: the run is reserved before start_background returns, so a resume asked for
        # before the background thread reaches the graph cannot take the run from under it
        assert first.is_active(run_id)
        with pytest.raises(RunError, match="already running"):
            second.resume(run_id)
        snap = first.wait(run_id, 90)
    assert snap.status == "completed", snap.error
    assert script.count("decompose") == 1


def test_a_cli_resume_is_refused_while_another_process_drives_the_run(tmp_path):
    import os

    from tests.reliability_support import run_cli

    db = tmp_path / "arbor.db"
    cli_done = threading.Event()

    def held_report(body: dict) -> str:
        # The run stays in flight until the CLI has answered, however fast the run or slow the CLI.
        cli_done.wait(60)
        return default_reply("meta_synthesis", body)

    with serve(ScriptedLLM(script={"meta_synthesis": held_report}, latency_s=0.3)) as (url, script):
        runner = make_runner(tmp_path, url, backends=[FixtureSearch()])
        run_id = runner.start_background(THREAD_QUESTIONS[0], config(auto_approve=True, mode="hierarchical"))
        wait_for(lambda: runner.store.get(run_id).status == "running", 10, "the run to be marked running")
        try:
            cli = run_cli(["resume", run_id], db, url, timeout=60)
        finally:
            cli_done.set()
        calls_during_cli = script.count("decompose")
        snap = runner.wait(run_id, 90)
    assert cli.returncode != 0
    error = cli.stderr.strip().splitlines()[-1]  # after the line saying which LLM the run continues with
    assert f"another Arbor process (pid {os.getpid()})" in error and "Traceback" not in cli.stderr, cli.stderr
    assert snap.status == "completed", snap.error
    assert calls_during_cli == script.count("decompose") == 1  # the CLI started nothing
    assert runner.store.get(run_id).owner_pid == os.getpid()
