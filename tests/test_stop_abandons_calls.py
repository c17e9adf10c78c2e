"""A stopped run does not wait for the model's answer under way.

The embedded model can take minutes for one answer on a busy machine; Ctrl-C, SIGTERM or a stop
request must end the run (and let the process exit) without waiting for it. The answer is abandoned,
not recorded: its step is done again on resume.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from research_core.configuration import LLMSettings
from research_core.llm.client import CallsStopped, LLMClient, allow_new_calls, stop_new_calls
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.reliability_support import (
    CLIMATE_QUESTION,
    checkpoint_count,
    index_documents,
    run_cli,
    spawn_cli,
    status_of,
    stub_process,
    wait_for,
)

SLOW_S = 30.0


def _client(url: str) -> LLMClient:
    # the call's own timeout is longer than the slow answer: only the stop can end the wait early
    return LLMClient(
        LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=120, max_retries=0),
        api_key="sk-test",
    )


def _timed_call(llm: LLMClient) -> tuple[BaseException | None, float]:
    started = time.monotonic()
    try:
        llm.complete("synthesize_branch", "system", "user", node="t")
    except BaseException as exc:  # CallsStopped is a KeyboardInterrupt
        return exc, time.monotonic() - started
    return None, time.monotonic() - started


def test_stopping_a_client_abandons_the_call_under_way():
    with serve(ScriptedLLM(latency_by_task={"synthesize_branch": SLOW_S})) as (url, scripted):
        llm = _client(url)
        threading.Timer(0.5, llm.stop_calls).start()
        raised, waited = _timed_call(llm)
        assert isinstance(raised, CallsStopped), raised
        assert waited < 5.0, f"the stopped call waited {waited:.1f} s for the answer"
        assert scripted.count("synthesize_branch") == 1  # it was under way, not refused before it started
        # another client of the process (another run) is not stopped
        other, _ = _client(url).complete("plan_queries", "system", "<sub_question>Q</sub_question>", node="t")
        assert other


def test_a_stop_signal_abandons_every_call_of_the_process():
    with serve(ScriptedLLM(latency_s=SLOW_S)) as (url, _):
        llm = _client(url)
        threading.Timer(0.5, stop_new_calls).start()
        try:
            raised, waited = _timed_call(llm)
        finally:
            allow_new_calls()
        assert isinstance(raised, CallsStopped) and waited < 5.0, (raised, waited)


def test_a_call_that_is_not_stopped_is_answered_and_costed():
    with serve(ScriptedLLM(latency_s=0.6)) as (url, _):
        text, entry = _client(url).complete("synthesize_branch", "system", "user", node="t")
    assert text and entry.ok and entry.latency_s >= 0.6 and entry.tokens_out > 0


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_sigterm_ends_a_cli_run_without_waiting_for_the_answer_under_way(tmp_path):
    db = tmp_path / "arbor.db"
    index_documents(db, tmp_path / "docs")
    with stub_process({"*": 0.05, "decompose": 120.0}) as url:
        proc = spawn_cli(["run", CLIMATE_QUESTION, "--auto"], db, url, "library")
        try:
            run_id = proc.stderr.readline().split("run id ")[1].split()[0]
            # the wording decides the mode; the decomposition's call is then the one under way
            wait_for(lambda: checkpoint_count(db, run_id) >= 2, 60, "the decomposition to start")
            time.sleep(1.0)
            os.kill(proc.pid, signal.SIGTERM)
            stopped = time.monotonic()
            _out, err = proc.communicate(timeout=120)
            exited = time.monotonic()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert exited - stopped < 20.0, f"the CLI waited {exited - stopped:.0f} s for the 120 s answer"
    assert "Traceback" not in err and "everything gathered so far is saved" in err
    assert status_of(db, run_id) == "interrupted"
    with stub_process() as url:  # the abandoned decomposition is done again on resume
        done = run_cli(["resume", run_id], db, url)
    assert done.returncode == 0, done.stderr
    assert status_of(db, run_id) == "completed"


def test_stopping_one_run_leaves_the_other_runs_of_the_process_running(tmp_path):
    # the workbench drives several runs with one Runner, and so with one LLM client
    with serve(ScriptedLLM(latency_s=0.3)) as (url, _):
        runner = make_runner(tmp_path, url)
        kept = runner.start_background(
            "Compare React, Vue, and Angular for building web applications", config(auto_approve=True)
        )
        stopped = runner.start_background(
            "Compare PostgreSQL and SQLite for small web applications", config(auto_approve=True)
        )
        both = (kept, stopped)
        wait_for(lambda: all(runner.snapshot(r).branches for r in both), 60, "both runs to be researching")
        runner.request_stop(stopped)
        assert runner.wait(stopped, timeout=60).status == "interrupted"
        final = runner.wait(kept, timeout=120)
    assert final.status == "completed", (final.status, final.error)
    assert final.final_answer
