"""A run's live values include what its running branch chains have checkpointed (research_core/runs/live_state.py).

This is what makes a finding appear in the live view (and count in History's totals) as soon as
its step is done, not only when the whole branch ends.
"""

from __future__ import annotations

from langgraph.types import PregelTask, StateSnapshot

from research_core.runs.live_state import merge_chain_progress
from research_core.schemas import SubQuestion


def snapshot(values: dict, tasks: tuple = ()) -> StateSnapshot:
    return StateSnapshot(
        values=values,
        next=(),
        config={},
        metadata=None,
        created_at=None,
        parent_config=None,
        tasks=tasks,
        interrupts=(),
    )


def chain(task_id: str, values: dict | None, result: dict | None = None, *, as_snapshot: bool = True) -> PregelTask:
    state = snapshot(values) if as_snapshot and values is not None else {"configurable": {"thread_id": "t"}}
    return PregelTask(task_id, "research_chain", ("__pregel_push", 0), state=state, result=result)


RUN = {
    "branches": {
        "sq_001": SubQuestion(id="sq_001", status="completed", question_text="One?", priority=0.5),
        "sq_002": SubQuestion(id="sq_002", status="researching", question_text="Two?", priority=0.5),
    },
    "findings": [{"id": "f1", "sub_question_id": "sq_001"}],
    "sources": [{"id": "s1"}],
    "warnings": [],
}


def test_the_steps_a_running_chain_has_finished_show_in_the_run():
    running = chain(
        "t2",
        {
            "branches": {"sq_002": {"iteration_count": 2, "queries": ["why"]}},
            "findings": [{"id": "f2", "sub_question_id": "sq_002"}],
            "sources": [{"id": "s2"}],
            "costs": [{"node": "research_step"}],
            "warnings": ["slow page"],
        },
    )
    merged = merge_chain_progress(RUN, snapshot(RUN, (running,)))
    assert [f["id"] for f in merged["findings"]] == ["f1", "f2"]
    assert [s["id"] for s in merged["sources"]] == ["s1", "s2"]
    assert merged["costs"] == [{"node": "research_step"}] and merged["warnings"] == ["slow page"]
    # the branch shows its progress and keeps what the run knew about it
    assert merged["branches"]["sq_002"] == SubQuestion(
        id="sq_002", status="researching", question_text="Two?", priority=0.5, iteration_count=2, queries=["why"]
    )
    assert merged["branches"]["sq_001"] == RUN["branches"]["sq_001"]


def test_the_run_values_are_not_changed():
    running = chain("t2", {"findings": [{"id": "f2", "sub_question_id": "sq_002"}]})
    merge_chain_progress(RUN, snapshot(RUN, (running,)))
    assert [f["id"] for f in RUN["findings"]] == ["f1"]


def test_a_finished_chain_is_not_counted_twice():
    finished = chain("t2", {"findings": [{"id": "f2"}]}, result={"findings": [{"id": "f2"}]})
    assert merge_chain_progress(RUN, snapshot(RUN, (finished,))) == RUN


def test_chains_without_checkpointed_steps_add_nothing():
    not_started = chain("t3", None)
    empty = chain("t4", {})
    assert merge_chain_progress(RUN, snapshot(RUN, (not_started, empty))) == RUN


def test_several_running_chains_all_count():
    a = chain("t2", {"findings": [{"id": "f2", "sub_question_id": "sq_002"}]})
    added = {"id": "sq_003", "question_text": "Three?", "priority": 0.5}
    b = chain("t3", {"findings": [{"id": "f3", "sub_question_id": "sq_003"}], "branches": {"sq_003": added}})
    merged = merge_chain_progress(RUN, snapshot(RUN, (a, b)))
    assert [f["id"] for f in merged["findings"]] == ["f1", "f2", "f3"]
    assert set(merged["branches"]) == {"sq_001", "sq_002", "sq_003"}
