"""Requests to a run from another process (a team's workbench or CLI), kept in its record: a stop, a queued gate answer.

Both engines; the run is driven by a real Runner in this process, as a worker drives it.
"""

from __future__ import annotations

import threading
import time

import pytest

from research_core.gates import ReviewApprove
from research_core.runs.snapshot import RunSnapshot
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.reliability_support import wait_for

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(120)


def test_a_queued_answer_is_taken_once_and_a_new_queueing_withdraws_a_stop(tmp_path, db) -> None:
    runner = make_runner(tmp_path, "http://127.0.0.1:9/v1", db=db)
    run_id = runner.create_run(QUESTION, config())
    runner.store.queue_again(run_id, ReviewApprove().model_dump(mode="json"), {"provider": "openai", "model": "m2"})
    assert runner.store.get(run_id).status == "queued" and runner.llm_record(run_id)["model"] == "m2"
    assert runner.store.take_answer(run_id) == {"action": "approve", "plan": None}
    assert runner.store.take_answer(run_id) is None  # applied once, by the worker that took it
    runner.request_stop(run_id)
    assert runner.store.stop_requested(run_id)
    runner.store.queue_again(run_id)  # the user resumed it
    assert not runner.store.stop_requested(run_id)


def test_a_stop_request_ends_the_drive_at_its_next_step_and_resume_finishes_the_run(tmp_path, db) -> None:
    with serve(ScriptedLLM(latency_s=0.2)) as (url, scripted):
        runner = make_runner(tmp_path, url, db=db)
        run_id = runner.create_run(QUESTION, config(auto_approve=True))
        ended: list[RunSnapshot] = []
        drive = threading.Thread(target=lambda: ended.append(runner.resume(run_id)), daemon=True)
        drive.start()
        wait_for(lambda: runner.snapshot(run_id).findings, 60, "a finding")
        runner.request_stop(run_id)
        drive.join(10)  # one step of 0.2 s calls, not the rest of the run
        assert not drive.is_alive() and ended[0].status == "interrupted"
        calls = len(scripted.recorded_calls())
        time.sleep(1)
        assert len(scripted.recorded_calls()) == calls, "the stopped run went on calling the model"
        stopped = runner.snapshot(run_id)
        assert stopped.status == "interrupted" and stopped.findings and stopped.final_answer is None
        assert runner.store.get(run_id).totals.partial  # what it spent so far is recorded, as after Ctrl-C

        runner.store.queue_again(run_id)  # resumed from the queue: the stop is withdrawn
        assert runner.resume_queued(run_id).status == "completed"
    final = {f.id: f.text for f in runner.snapshot(run_id).findings}
    assert all(final.get(f.id) == f.text for f in stopped.findings)


def test_a_run_stopped_while_it_waited_in_the_queue_does_not_start(tmp_path, db) -> None:
    with serve(ScriptedLLM()) as (url, scripted):
        runner = make_runner(tmp_path, url, db=db)
        run_id = runner.create_run(QUESTION, config(auto_approve=True))
        runner.store.queue_again(run_id)
        runner.request_stop(run_id)
        assert runner.resume_queued(run_id).status == "interrupted"
        assert scripted.recorded_calls() == []
