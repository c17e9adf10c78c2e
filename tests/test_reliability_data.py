"""Nothing lost: a mistyped output path, a delete from a second process and a mistyped --db.

Each leaves the database, its runs, their checkpoints and the library exactly as they were, and
says what went wrong in one line.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research_core.cli.main import main
from research_core.runs.ownership import process_start_token
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import REPO, clean_env, cli_args, run_cli, wait_for

pytestmark = pytest.mark.timeout(180)

QUESTION = "Compare React, Vue, and Angular for building web applications"
LIMIT = 8_000  # bytes a process may write into one file in the interrupted-export test


def db_digest(db: Path) -> str:
    """The bytes of the database and its WAL and shared-memory files."""
    digest = hashlib.sha256()
    for path in sorted(db.parent.glob(db.name + "*")):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def rows(db: Path, sql: str, *params: object) -> int:
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute(sql, params).fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def finished(tmp_path):
    """A database holding one finished run; yields (db, run_id, stub url, scripted)."""
    with serve(ScriptedLLM()) as (url, script):
        runner = make_runner(tmp_path, url)
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
        assert snap.status == "completed", snap.error
        runner.store.close()
        calls = len(script.calls)
        yield tmp_path / "arbor.db", snap.run_id, url, script
        assert len(script.calls) == calls, "a refused command called the LLM"


# ---- 1. an output path that is the database ----------------------------------------------------


@pytest.mark.parametrize(
    ("command", "target"),
    [
        (["export", "{run}", "--out", "{db}"], "db"),
        (["export", "{run}", "--format", "json", "--out", "{db}-wal"], "wal"),
        (["export", "{run}", "--format", "html", "--out", "{db}-shm"], "shm"),
        (["run", QUESTION, "--auto", "--json", "{db}"], "db"),
        (["run", QUESTION, "--auto", "--out", "{symlink}"], "symlink"),
        (["decompose", QUESTION, "--json", "{db}"], "db"),
        (["compare", "--runs", "{run}", "{run}", "--json", "{hardlink}"], "hardlink"),
        (["resume", "{run}", "--json", "{db}"], "db"),
    ],
)
def test_an_output_path_that_is_the_database_is_refused_and_nothing_changes(finished, capsys, command, target):
    db, run_id, url, _ = finished
    (db.parent / "report.md").symlink_to(db)
    os.link(db, db.parent / "copy.json")
    (db.parent / "arbor.db-wal").touch()
    (db.parent / "arbor.db-shm").touch()
    paths = {
        "db": str(db),
        "run": run_id,
        "symlink": str(db.parent / "report.md"),
        "hardlink": str(db.parent / "copy.json"),
    }
    argv = [part.format(**paths) for part in command]
    before = db_digest(db)
    capsys.readouterr()
    code = main([*argv, "--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "the database" in err and "Choose another file name" in err, err
    assert db_digest(db) == before
    assert rows(db, "select count(*) from runs") == 1
    assert rows(db, "PRAGMA integrity_check") == "ok"


def test_an_interrupted_export_leaves_the_previous_file_whole(finished):
    """The export is cut short by the file-size limit (as by a full disk) after some bytes."""
    db, run_id, _url, _ = finished
    out = db.parent / "report.json"
    out.write_text('{"the": "previous export"}\n')

    def limit_file_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    # An open connection keeps the WAL index (-shm, 32 KiB) in place, so only the export hits the limit.
    keeper = sqlite3.connect(str(db))
    keeper.execute("select count(*) from runs").fetchone()
    try:
        done = subprocess.run(
            cli_args(["export", run_id, "--format", "json", "--out", str(out)], db),
            cwd=REPO,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=120,
            preexec_fn=limit_file_size,
        )
    finally:
        keeper.close()
    assert done.returncode != 0
    assert out.read_text() == '{"the": "previous export"}\n'
    assert [p.name for p in db.parent.iterdir() if p.name.startswith(".report")] == []
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    # without the limit the same export is written whole
    assert run_cli(["export", run_id, "--format", "json", "--out", str(out)], db).returncode == 0
    assert len(out.read_text()) > LIMIT and out.read_text().rstrip().endswith("}")


# ---- 2. deleting a run another process drives --------------------------------------------------


def test_a_cli_delete_is_refused_while_another_process_drives_the_run(tmp_path):
    db = tmp_path / "arbor.db"
    cli_done = threading.Event()

    def held_report(body: dict) -> str:
        cli_done.wait(60)  # the run stays in flight until the CLI has answered
        return default_reply("meta_synthesis", body)

    with serve(ScriptedLLM(script={"meta_synthesis": held_report}, latency_s=0.1)) as (url, _script):
        runner = make_runner(tmp_path, url, backends=[FixtureSearch()])
        run_id = runner.start_background(QUESTION, config(auto_approve=True, mode="hierarchical"))
        wait_for(lambda: runner.store.get(run_id).status == "running", 10, "the run to be marked running")
        try:
            cli = run_cli(["delete", run_id], db, timeout=60)
        finally:
            cli_done.set()
        snap = runner.wait(run_id, 90)
    assert cli.returncode == 2
    assert cli.stderr.strip() == (
        f"arbor: Run {run_id} is being driven by another Arbor process (pid {os.getpid()}); wait until it pauses "
        "or finishes, or stop that process first, then delete it."
    )
    assert snap.status == "completed", snap.error  # the driver never noticed
    assert runner.store.get(run_id) is not None
    assert rows(db, "select count(*) from checkpoints where thread_id = ?", run_id) > 0


def test_delete_removes_the_record_checkpoints_and_writes_together(finished):
    db, run_id, _url, _ = finished
    assert rows(db, "select count(*) from checkpoints where thread_id = ?", run_id) > 0
    assert rows(db, "select count(*) from writes where thread_id = ?", run_id) > 0
    done = run_cli(["delete", run_id], db)
    assert done.returncode == 0 and done.stdout.strip() == f"deleted {run_id}", done.stderr
    for table in ("checkpoints", "writes"):
        assert rows(db, f"select count(*) from {table} where thread_id = ?", run_id) == 0
    assert rows(db, "select count(*) from runs") == 0


def test_the_history_page_refuses_to_delete_a_run_another_process_drives(finished, monkeypatch):
    db, run_id, url, _ = finished
    monkeypatch.setenv("ARBOR_DB", str(db))
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ARBOR_SEARCH", "library")
    other = subprocess.Popen(["sleep", "120"])  # stands in for the CLI process driving the run
    try:
        conn = sqlite3.connect(str(db))
        with conn:
            conn.execute(
                "update runs set status = 'running', owner_pid = ?, owner_token = ? where id = ?",
                [other.pid, process_start_token(other.pid), run_id],
            )
        conn.close()
        at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
        at = at.switch_page("app_pages/history.py").run()
        delete = next(b for b in at.button if b.label == "Delete…")
        assert delete.disabled
        # a confirmation left open from before the run started is refused too
        at.session_state["history_confirm_delete"] = run_id
        at.run()
        next(b for b in at.button if b.label == "Delete permanently").click().run()
        assert not at.exception
        assert any("another Arbor process" in e.value for e in at.error), [e.value for e in at.error]
        assert rows(db, "select count(*) from runs") == 1
    finally:
        other.kill()
        other.wait()


# ---- 3. a mistyped --db ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["runs"],
        ["show", "r1"],
        ["export", "r1", "--out", "{tmp}/x.md"],
        ["resume", "r1"],
        ["rerun", "r1", "sq_001"],
        ["delete", "r1"],
        ["compare", "--runs", "r1", "r2"],
        ["library", "search", "sqlite"],
        ["library", "list"],
        ["library", "remove", "d1"],
    ],
)
def test_reading_commands_refuse_a_missing_database_and_create_nothing(tmp_path, capsys, command):
    missing = tmp_path / "dta" / "arbor.db"  # a typo of data/
    argv = [part.format(tmp=tmp_path) for part in command]
    capsys.readouterr()
    assert main([*argv, "--db", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"arbor: no database at {missing}; check the path given with --db or $ARBOR_DB (nothing was created)."
    assert not missing.parent.exists()


def test_a_missing_arbor_db_is_refused_too(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "typo.db"
    monkeypatch.setenv("ARBOR_DB", str(missing))
    assert main(["runs"]) == 2
    assert f"no database at {missing}" in capsys.readouterr().err
    assert not missing.exists()
