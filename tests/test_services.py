"""The run's config reaches every node through the runtime context (`Services.config`).

The runner validates it from the run record once per drive, so a run resumed by another runner
(after a restart, or from the command line) goes on with the config it was started with, and a
checkpoint written when tasks still carried a copy of the config resumes as before.
"""

from __future__ import annotations

import pytest

from research_core.db import open_checkpointer
from research_core.graph import build_graph
from research_core.schemas import SubQuestion
from tests.conftest import config, make_runner

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(120)


def test_a_run_resumed_by_another_runner_keeps_the_config_it_was_started_with(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    paused = runner.start(QUESTION, config(step_mode=True, parallel=1, adaptive_plan=False, max_depth=1))
    assert paused.status == "awaiting_review"
    # a fresh runner, as after a restart: only the run record says the run is in step mode
    after_review = make_runner(tmp_path, url).resume(paused.run_id, "approve")
    assert after_review.pending is not None and "completed" in after_review.pending  # the step gate
    researched = [b for b in after_review.branches if b.iteration_count]
    assert len(researched) == 1  # one step of one branch at a time (step mode, parallel=1)


def branch(index: int, **fields) -> dict:
    return SubQuestion(
        id=f"sq_{index:03d}", question_text=f"How do React and Vue differ in part {index}?", priority=0.5, **fields
    ).model_dump()


def test_a_checkpoint_whose_tasks_carry_the_config_resumes(tmp_path, scripted):
    """Older versions copied the run's config into every task; such pending tasks still run."""
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    run_config = config(auto_approve=True, adaptive_plan=False, max_depth=1)
    run_id = runner.create_run(QUESTION, run_config)
    stored = run_config.model_dump()
    answered = branch(1, status="researching", research_done=True, allocated_iterations=2)
    researching = branch(2, status="researching", allocated_iterations=2)
    legacy_tasks = [
        {
            "node": "synthesize_branch",
            "payload": {
                "question": QUESTION,
                "config": stored,
                "branch": answered,
                "findings": [],
                "children": [],
                "sources": [],
            },
        },
        {
            "node": "research_chain",
            "payload": {
                "question": QUESTION,
                "config": stored,
                "branch": researching,
                "known_findings": [],
                "known_sources": [],
                "answer_when_done": True,
                "others_wait": False,
                "branch_count": 2,
                "iterations_left": 4,
                "max_steps": 2,
                "max_cost_usd": 1.0,
            },
        },
    ]
    values = {
        "run_id": run_id,
        "question": QUESTION,
        "config": stored,
        "mode": "hierarchical",
        "strategy": "multi-faceted",
        "branches": {answered["id"]: answered, researching["id"]: researching},
        "branch_order": [answered["id"], researching["id"]],
        "acknowledged": [],
        "revised_after": [],
        "next_tasks": legacy_tasks,
    }
    with open_checkpointer(runner.location) as saver:
        graph = build_graph(saver)
        cfg = {"configurable": {"thread_id": run_id}}
        graph.update_state(cfg, values, as_node="coordinate")
        assert set(graph.get_state(cfg).next) == {"synthesize_branch", "research_chain"}

    done = runner.resume(run_id)
    assert done.status == "completed", done.error
    by_id = {b.id: b for b in done.branches}
    assert by_id["sq_002"].iteration_count >= 1 and by_id["sq_002"].status == "completed"
    assert by_id["sq_001"].status == "completed" and by_id["sq_001"].synthesis
