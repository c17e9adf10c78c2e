"""Runs executed by workers: `run --detach` queues a run in PostgreSQL, `worker` processes research it.

Everything is real but the model: a throw-away PostgreSQL cluster, the CLI and the workers as
subprocesses, and the scripted LLM served from this process (so every call the workers make is
counted here). Each test starts and stops its own workers and leaves none running.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from research_core.runs.runner import Runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.reliability_support import CLIMATE_QUESTION, REPO, clean_env, index_documents, run_cli, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

STALLED_AFTER_S = 3  # a killed worker's job goes back to the queue after this many seconds


@contextmanager
def worker_process(db: str) -> Iterator[subprocess.Popen]:
    """`python -m research_core worker` on `db`; stopped with SIGTERM (SIGKILL if it hangs) at the end."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "research_core", "worker", "--db", db, "--stalled-after", str(STALLED_AFTER_S)],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def stop(proc: subprocess.Popen) -> str:
    """Stop an idle worker with SIGTERM; it must exit cleanly. Returns its stderr."""
    os.killpg(proc.pid, signal.SIGTERM)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    return err


def detach(db: str, llm_url: str) -> str:
    """`run QUESTION --auto --detach` on `db`: the run id, printed at once, nothing researched yet."""
    started = time.monotonic()
    done = run_cli(["run", CLIMATE_QUESTION, "--auto", "--detach"], db, llm_url, "library")
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - started < 60
    run_id = done.stdout.strip()
    assert run_id and "queued for a worker" in done.stderr
    return run_id


def _status(runner: Runner, run_id: str) -> str:
    return runner.snapshot(run_id).status


@pytest.mark.timeout(240)
def test_detached_run_is_researched_by_a_worker(tmp_path: Path, postgres_url: str) -> None:
    index_documents(postgres_url, tmp_path / "docs")
    runner = Runner(postgres_url)
    with serve(ScriptedLLM()) as (llm_url, scripted):
        run_id = detach(postgres_url, llm_url)
        time.sleep(1.0)
        assert _status(runner, run_id) == "created" and not scripted.recorded_calls(), "nothing runs without a worker"
        with worker_process(postgres_url) as worker:
            wait_for(lambda: _status(runner, run_id) in ("completed", "failed"), 180, "the worker to finish the run")
            err = stop(worker)
    assert f"run {run_id}: completed" in err
    result = runner.result(run_id)
    assert result is not None and result.status == "completed" and result.mode == "hierarchical"
    assert result.sub_questions and all(sq.findings for sq in result.sub_questions)
    assert result.final_answer
    assert result.costs.llm_calls == len(scripted.recorded_calls())


@pytest.mark.timeout(300)
def test_a_killed_workers_run_is_resumed_by_another_worker(tmp_path: Path, postgres_url: str) -> None:
    index_documents(postgres_url, tmp_path / "docs")
    runner = Runner(postgres_url)
    with serve(ScriptedLLM(latency_s=0.4)) as (llm_url, scripted):
        run_id = detach(postgres_url, llm_url)
        with worker_process(postgres_url) as first:

            def mid_branch() -> bool:
                snap = runner.snapshot(run_id)
                return bool(snap.findings) and any(b.status != "completed" for b in snap.branches)

            wait_for(mid_branch, 120, "the run to be between findings")
            time.sleep(0.3)  # a step's LLM call is in flight
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(timeout=10)
            calls_before = len(scripted.recorded_calls())
        killed = runner.snapshot(run_id)
        assert killed.status == "interrupted" and killed.findings
        lost = calls_before - len(killed.costs.entries)  # the interrupted step's calls, not checkpointed
        assert lost >= 0

        with worker_process(postgres_url) as second:
            wait_for(lambda: _status(runner, run_id) in ("completed", "failed"), 180, "the second worker to finish")
            err = stop(second)
        assert "its worker stopped; queued again" in err

    result = runner.result(run_id)
    assert result is not None and result.status == "completed"
    assert all(sq.findings for sq in result.sub_questions)
    final = {f.id: f.text for sq in result.sub_questions for f in sq.findings}
    for f in killed.findings:
        assert final.get(f.id) == f.text, f"finding {f.id} was lost or changed"
    uninterrupted = len(result.costs.entries)  # what the run's own steps called, each once
    assert len(scripted.recorded_calls()) <= uninterrupted + lost, "a checkpointed step was run again"
