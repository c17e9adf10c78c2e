"""The run's state holds typed records (`SubQuestion` branches, task records) in its checkpoints.

A checkpoint round-trips them as records, without the serializer's warning about unregistered
classes; a checkpoint written before the records (branches and pending tasks as plain dicts)
still resumes and finishes the run.
"""

from __future__ import annotations

import logging

import pytest
from langgraph.constants import TASKS
from langgraph.types import Send

from research_core.db import open_checkpointer
from research_core.graph import build_graph
from research_core.schemas import SubQuestion
from research_core.state import merge_branches
from research_core.task_records import ChainTask, SynthesisTask, task_from_state
from tests.conftest import config, make_runner

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(120)


def branch(index: int, **fields) -> SubQuestion:
    return SubQuestion(
        id=f"sq_{index:03d}", question_text=f"How do React and Vue differ in part {index}?", priority=0.5, **fields
    )


def test_the_branch_reducer_reads_records_dicts_and_field_updates_into_records() -> None:
    old = {"sq_001": branch(1).model_dump(), "sq_002": branch(2)}  # a checkpoint from before, and a record
    merged = merge_branches(old, {"sq_001": {"status": "researching"}, "sq_002": None, "sq_003": branch(3)})
    assert list(merged) == ["sq_001", "sq_003"]
    assert all(isinstance(b, SubQuestion) for b in merged.values())
    assert merged["sq_001"].status == "researching" and merged["sq_001"].question_text == branch(1).question_text


def test_a_misspelt_or_mistyped_branch_field_is_refused_not_read_as_none() -> None:
    with pytest.raises(AttributeError):
        _ = branch(1).stauts  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="iteration_count"):
        merge_branches({"sq_001": branch(1)}, {"sq_001": {"iteration_count": "many"}})
    with pytest.raises(ValueError, match="not a branch field: stauts"):
        merge_branches({"sq_001": branch(1)}, {"sq_001": {"stauts": "completed"}})


def test_an_older_task_dict_is_read_into_its_record() -> None:
    legacy = {"node": "synthesize_branch", "payload": {"question": "Q", "branch": branch(1).model_dump()}}
    task = task_from_state(legacy)
    assert isinstance(task, SynthesisTask) and task.branch == branch(1) and task.node == "synthesize_branch"
    assert task_from_state(task) is task


def test_a_checkpoint_holds_the_records_and_reads_them_back_without_a_warning(
    tmp_path, scripted, caplog: pytest.LogCaptureFixture
) -> None:
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    paused = runner.start(QUESTION, config(step_mode=True, parallel=1, adaptive_plan=False, max_depth=1))
    after_review = runner.resume(paused.run_id, "approve")
    assert after_review.pending is not None  # paused at the step gate, a chain's task in the checkpoint
    caplog.set_level(logging.WARNING)
    with open_checkpointer(runner.location) as saver:
        values = build_graph(saver).get_state({"configurable": {"thread_id": paused.run_id}}).values
    assert values["branches"] and all(isinstance(b, SubQuestion) for b in values["branches"].values())
    assert not [r for r in caplog.records if "unregistered type" in r.getMessage() or "Blocked" in r.getMessage()]


def rewrite_as_before_records(saver, cfg: dict) -> None:
    """Store the latest checkpoint of `cfg` as a version before the records wrote it: its branches,
    its `next_tasks` and the payloads of its pending tasks (`Send`s) as plain dicts."""
    tup = saver.get_tuple(cfg)
    values = dict(tup.checkpoint["channel_values"])
    values["branches"] = {bid: b.model_dump() for bid, b in values["branches"].items()}
    values["next_tasks"] = [{"node": t.node, "payload": t.model_dump()} for t in values["next_tasks"]]
    values[TASKS] = [Send(send.node, send.arg.model_dump()) for send in values[TASKS]]
    parent = tup.parent_config or {"configurable": {"thread_id": cfg["configurable"]["thread_id"], "checkpoint_ns": ""}}
    saver.put(parent, {**tup.checkpoint, "channel_values": values}, tup.metadata, {})


def test_a_run_checkpointed_before_the_records_resumes_and_finishes(tmp_path, scripted) -> None:
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    run_id = runner.create_run(QUESTION, config(auto_approve=True, adaptive_plan=False, max_depth=1))
    answered = branch(1, status="researching", research_done=True, allocated_iterations=2)
    researching = branch(2, status="researching", allocated_iterations=2)
    tasks = [
        SynthesisTask(question=QUESTION, branch=answered),
        ChainTask(question=QUESTION, branch=researching, branch_count=2, iterations_left=4, max_steps=2),
    ]
    values = {
        "run_id": run_id,
        "question": QUESTION,
        "mode": "hierarchical",
        "strategy": "multi-faceted",
        "branches": {answered.id: answered, researching.id: researching},
        "branch_order": [answered.id, researching.id],
        "acknowledged": [],
        "revised_after": [],
        "next_tasks": tasks,
    }
    cfg = {"configurable": {"thread_id": run_id}}
    with open_checkpointer(runner.location) as saver:
        graph = build_graph(saver)
        graph.update_state(cfg, values, as_node="coordinate")
        rewrite_as_before_records(saver, cfg)
        old = saver.get_tuple(cfg)
        stored = old.checkpoint["channel_values"]
        assert all(type(b) is dict for b in stored["branches"].values())  # as an older version stored them
        assert [type(send.arg) for send in stored[TASKS]] == [dict, dict]
        assert set(graph.get_state(cfg).next) == {"synthesize_branch", "research_chain"}

    done = runner.resume(run_id)
    assert done.status == "completed", done.error
    by_id = {b.id: b for b in done.branches}
    assert by_id["sq_002"].iteration_count >= 1 and by_id["sq_002"].status == "completed"
    assert by_id["sq_001"].status == "completed" and by_id["sq_001"].synthesis
    with open_checkpointer(runner.location) as saver:
        final = build_graph(saver).get_state(cfg).values
    assert all(isinstance(b, SubQuestion) for b in final["branches"].values())  # written back as records
