"""The run queue's rules: PostgreSQL only, its tables created once, one waiting job per run; the CLI's refusals."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest

from research_core.cli.main import main
from research_core.configuration import RunConfig
from research_core.runs.errors import RunError
from research_core.runs.queue import NEEDS_POSTGRES, QUEUE, enqueue_run, ensure_queue_schema, require_postgres
from research_core.runs.runner import Runner
from research_core.runs.worker import WorkerSettings
from research_core.storage.location import locate


def test_a_sqlite_store_has_no_queue(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="workers need a PostgreSQL store"):
        require_postgres(locate(tmp_path / "arbor.db"))
    runner = Runner(tmp_path / "arbor.db")
    with pytest.raises(RunError, match="PostgreSQL"):
        runner.enqueue("What is PostgreSQL?", RunConfig(search_backends=["fixture"]))
    assert runner.runs() == []  # refused before anything was recorded


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["worker"], f"arbor: {NEEDS_POSTGRES}"),
        (["run", "What is PostgreSQL?", "--detach"], "arbor: --detach needs a PostgreSQL store"),
    ],
)
def test_worker_and_detach_on_sqlite_are_one_line_and_create_nothing(tmp_path: Path, capsys, argv, line) -> None:
    db = tmp_path / "arbor.db"
    assert main([*argv, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(line) and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not db.exists()


def test_worker_options_are_range_checked(capsys) -> None:
    assert main(["worker", "--concurrency", "0", "--db", "postgresql://u:secret@127.0.0.1:1/x"]) == 2
    err = capsys.readouterr().err
    assert "--concurrency" in err and "from 1 to 16" in err and "secret" not in err


def test_an_unreachable_queue_is_one_line_without_the_password(capsys) -> None:
    assert main(["worker", "--db", "postgresql://u:secret@127.0.0.1:1/x"]) == 1
    err = capsys.readouterr().err
    assert "cannot open the database" in err and "secret" not in err and len(err.strip().splitlines()) == 1


def test_heartbeat_and_sweep_follow_the_stalled_timeout() -> None:
    assert WorkerSettings(stalled_after_s=30).heartbeat_s == 10
    assert WorkerSettings(stalled_after_s=30).sweep_s == 10
    assert WorkerSettings(stalled_after_s=1).sweep_s == 1
    assert WorkerSettings(stalled_after_s=3600).sweep_s == 59


@pytest.mark.postgres
def test_the_queue_tables_are_created_once_even_by_processes_starting_together(postgres_url: str) -> None:
    location = locate(postgres_url)
    with ThreadPoolExecutor(4) as pool:
        created = list(pool.map(lambda _: ensure_queue_schema(location), range(4)))
    assert created.count(True) == 1
    assert ensure_queue_schema(location) is False


@pytest.mark.postgres
def test_a_run_has_one_waiting_job(postgres_url: str) -> None:
    location = locate(postgres_url)
    first = enqueue_run(location, "run-a")
    assert enqueue_run(location, "run-a") == first
    assert enqueue_run(location, "run-b") != first
    with psycopg.connect(location.conninfo()) as conn:
        rows = conn.execute(
            "SELECT args->>'run_id', lock, status FROM procrastinate_jobs WHERE queue_name = %s ORDER BY id", (QUEUE,)
        ).fetchall()
    assert rows == [("run-a", "run-a", "todo"), ("run-b", "run-b", "todo")]
