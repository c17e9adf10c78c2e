"""Runs executed by workers: `run --detach` queues a run in PostgreSQL, `worker` processes research it.

Everything is real but the model: a throw-away PostgreSQL cluster, the CLI and the workers as
subprocesses, and the scripted LLM served from this process (so every call the workers make is
counted here). Each test starts and stops its own workers and leaves none running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.live_progress import watch
from research_core.cli.follow import NO_WORKER_AFTER_S
from research_core.configuration import LLMSettings, build_run_config
from research_core.gates import ReviewApprove
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.reliability_support import (
    CLIMATE_QUESTION,
    REPO,
    clean_env,
    index_documents,
    run_cli,
    spawn_cli,
    wait_for,
)
from ui.run_view import POLL_SECONDS

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
        assert _status(runner, run_id) == "queued" and not scripted.recorded_calls(), "nothing runs without a worker"
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


def mid_branch(snap: RunSnapshot) -> bool:
    """Findings checkpointed and a branch still being researched."""
    return bool(snap.findings) and any(b.status != "completed" for b in snap.branches)


def ended(proc: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """The output of a CLI process once it exits (killed if it does not within `timeout`)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _out, err = proc.communicate()
        raise AssertionError(f"the CLI did not end: {err}") from None


@pytest.mark.timeout(240)
def test_run_waits_for_a_worker_says_so_and_ends_as_a_run_in_this_process_does(tmp_path: Path, postgres_url: str):
    index_documents(postgres_url, tmp_path / "docs")
    runner = Runner(postgres_url)
    with serve(ScriptedLLM()) as (llm_url, scripted):
        command = ["run", CLIMATE_QUESTION, "--auto", "--json", str(tmp_path / "r.json")]
        cli = spawn_cli(command, postgres_url, llm_url, "library")
        try:
            wait_for(lambda: [r.status for r in runner.runs()] == ["queued"], 60, "the run listed as queued")
            time.sleep(NO_WORKER_AFTER_S + 1.5)
            assert cli.poll() is None and not scripted.recorded_calls(), "the CLI waits; nothing runs without a worker"
            with worker_process(postgres_url) as worker:
                out, err = ended(cli, 180)
                stop(worker)
        finally:
            if cli.poll() is None:
                os.killpg(cli.pid, signal.SIGKILL)
    run_id = runner.runs()[0].id
    assert cli.returncode == 0, err
    waiting = f"arbor: run id {run_id} queued; waiting for a worker (start one with `python -m research_core worker`)"
    assert waiting in err.splitlines()
    started = f"arbor: run id {run_id} started; resume with: python -m research_core resume {run_id} --db "
    assert any(line.startswith(started) for line in err.splitlines())
    assert err.index("waiting for a worker") < err.index("started; resume with")
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["status"] == "completed" and result["final_answer"] in out
    assert f"Run {run_id}: completed, hierarchical" in err and "Traceback" not in err


@pytest.mark.timeout(300)
def test_ctrl_c_while_waiting_stops_the_run_in_the_worker_and_resume_finishes_it(tmp_path: Path, postgres_url: str):
    index_documents(postgres_url, tmp_path / "docs")
    runner = Runner(postgres_url)
    with serve(ScriptedLLM(latency_s=0.3)) as (llm_url, scripted), worker_process(postgres_url) as worker:
        cli = spawn_cli(["run", CLIMATE_QUESTION, "--auto"], postgres_url, llm_url, "library")
        run_id = wait_for(lambda: [r.id for r in runner.runs()], 60, "the run record")[0]
        wait_for(lambda: mid_branch(runner.snapshot(run_id)), 120, "the run to be between findings")
        os.killpg(cli.pid, signal.SIGINT)
        _out, err = ended(cli, 30)
        assert cli.returncode == 130, err
        assert f"stop requested: the worker stops run {run_id} at its next step" in err
        assert (
            f"interrupted; everything gathered so far is saved; resume with: python -m research_core resume {run_id}"
            in err
        )

        stopped = wait_for(lambda: (s := runner.snapshot(run_id)).status == "interrupted" and s, 30, "the run to stop")
        calls = len(scripted.recorded_calls())
        time.sleep(2)
        assert len(scripted.recorded_calls()) == calls, "the stopped run went on calling the model"
        assert worker.poll() is None, "the worker stopped the run, not itself"
        assert stopped.findings and stopped.final_answer is None

        done = run_cli(["resume", run_id, "--json", str(tmp_path / "r.json")], postgres_url, llm_url, timeout=180)
        assert done.returncode == 0, done.stderr
        stop(worker)
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["status"] == "completed"
    final = {f["id"]: f["text"] for sq in result["sub_questions"] for f in sq["findings"]}
    assert all(final.get(f.id) == f.text for f in stopped.findings), "a finding of the stopped run was lost"


@pytest.mark.timeout(300)
def test_gate_answers_and_branch_reruns_go_through_the_queue(tmp_path: Path, postgres_url: str):
    index_documents(postgres_url, tmp_path / "docs")
    with serve(ScriptedLLM()) as (llm_url, _scripted), worker_process(postgres_url) as worker:
        llm = LLMSettings(provider="openai", base_url=llm_url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
        workbench = Runner(postgres_url, llm_settings=llm, api_key="sk-test")
        done = run_cli(["run", CLIMATE_QUESTION], postgres_url, llm_url, "library", timeout=180)
        assert done.returncode == 0, done.stderr
        assert "waiting for review" in done.stdout
        run_id = workbench.runs()[0].id
        assert workbench.snapshot(run_id).status == "awaiting_review"

        # the Review page's Approve: answered through the queue, at once; the worker applies the answer
        workbench.resume_background(run_id, ReviewApprove())
        queued = workbench.store.get(run_id)
        # queued, or already claimed by the worker (a busy machine lets it poll first): never run here
        assert queued.status == "queued" or (queued.status == "running" and queued.owner_pid != os.getpid())
        wait_for(lambda: workbench.store.get(run_id).status == "completed", 180, "the worker to finish the run")

        branch = workbench.result(run_id).sub_questions[0].id
        out = tmp_path / "rerun.json"
        done = run_cli(["rerun", run_id, branch, "--json", str(out)], postgres_url, llm_url, timeout=180)
        assert done.returncode == 0, done.stderr
        err = stop(worker)
    rerun = json.loads(out.read_text())
    assert rerun["status"] == "completed"
    assert workbench.store.get(rerun["run_id"]).parent_run_id == run_id
    for line in (f"run {run_id}: awaiting_review", f"run {run_id}: completed", f"run {rerun['run_id']}: completed"):
        assert line in err, f"the worker did not drive it: {line}"


@pytest.mark.timeout(240)
def test_the_run_page_data_of_a_worker_run_shows_each_step_within_a_second_with_ten_pages_open(
    tmp_path: Path, postgres_url: str
):
    index_documents(postgres_url, tmp_path / "docs")
    with serve(ScriptedLLM(latency_s=0.2)) as (llm_url, _scripted), worker_process(postgres_url):
        llm = LLMSettings(provider="openai", base_url=llm_url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
        workbench = Runner(postgres_url, llm_settings=llm, api_key="sk-test")
        config = build_run_config("general", CLIMATE_QUESTION, search_backends=["library"], auto_approve=True)
        run_id = workbench.enqueue(CLIMATE_QUESTION, config)
        delays = watch(workbench, run_id, readers=10, poll_s=POLL_SECONDS, timeout_s=180)
    assert workbench.store.get(run_id).status == "completed"
    assert delays.checkpoints >= 10 and len(delays.delays_s) >= 10 * delays.checkpoints * 0.9
    # within a second, with room for a busy machine: the page polls every POLL_SECONDS and a read takes milliseconds
    assert delays.quantile(0.9) <= 0.75 and delays.quantile(0.95) <= 1.0, delays.summary()
