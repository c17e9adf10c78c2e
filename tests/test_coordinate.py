"""The `coordinate` node as a whole: its steps in order, under the config of the runtime context.

Each step's rules are tested in the file of its module (`test_coordination_*.py`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from research_core.coordination.coordinate import coordinate
from tests.coordination_support import priced_services


def branch(bid: str, priority: float, **fields: Any) -> dict:
    return {
        "id": bid,
        "question_text": f"Question {bid}?",
        "priority": priority,
        "status": "pending",
        "allocated_iterations": 3,
        **fields,
    }


def state(branches: dict[str, dict], **extra: Any) -> Any:
    """A run's state after budget allocation; it has no `config`: nodes read the runtime context's."""
    return {
        "question": "Q",
        "mode": "hierarchical",
        "branches": branches,
        "branch_order": list(branches),
        "findings": [],
        "sources": [],
        "costs": [],
        **extra,
    }


def runtime(**config: Any) -> Any:
    return SimpleNamespace(context=priced_services(**config))


def test_a_pass_starts_as_many_chains_as_the_context_config_allows_highest_priority_first() -> None:
    branches = {"sq1": branch("sq1", 0.4), "sq2": branch("sq2", 0.9), "sq3": branch("sq3", 0.6)}
    update = coordinate(state(branches), runtime(parallel=2, adaptive_plan=False, max_depth=1))
    tasks = update["next_tasks"]
    assert [(t.node, t.branch.id) for t in tasks] == [
        ("research_chain", "sq2"),
        ("research_chain", "sq3"),
    ]
    assert all("config" not in t.model_dump() for t in tasks)
    assert {bid: fields["status"] for bid, fields in update["branches"].items()} == {
        "sq2": "researching",
        "sq3": "researching",
    }
    assert update["stop_requested"] is False and update["warnings"] == []
    assert tasks[0].others_wait  # sq1 waits for a free slot


def test_a_pass_with_nothing_left_schedules_nothing() -> None:
    done = {"sq1": branch("sq1", 0.5, status="completed", research_done=True)}
    update = coordinate(state(done, acknowledged=["sq1"], revised_after=["sq1"]), runtime())
    assert update["next_tasks"] == [] and update["branches"] == {}


def test_a_halted_run_answers_what_it_has_and_skips_the_rest() -> None:
    branches = {
        "sq1": branch("sq1", 0.9, status="researching", iteration_count=1),
        "sq2": branch("sq2", 0.5),
    }
    findings = [{"sub_question_id": "sq1", "text": "Known.", "source_ids": []}]
    update = coordinate(state(branches, findings=findings, costs=[{"cost_usd": 0.5}]), runtime(max_total_cost_usd=0.1))
    assert [t.node for t in update["next_tasks"]] == ["synthesize_branch"]
    assert update["branches"]["sq2"] == {"status": "skipped", "stop_reason": "cost cap reached"}
    assert update["budget_exhausted_logged"] is True
