"""The tasks `coordinate` hands out (`coordination/tasks.py`): what each carries, and when chains come back."""

from __future__ import annotations

from typing import Any

from research_core.coordination.caps import Caps
from research_core.coordination.tasks import findings_index, research_tasks, revise_task, synthesis_task
from tests.coordination_support import make_pass

STATE: Any = {"question": "Q", "mode": "hierarchical", "revisions_done": 0}
SOURCES = {sid: {"id": sid, "url": f"https://example.org/{sid}"} for sid in ("a1", "b2", "c3", "d4")}


def finding(bid: str, text: str, *sources: str) -> dict:
    return {"sub_question_id": bid, "text": text, "source_ids": list(sources)}


def test_findings_index_counts_and_groups_by_branch_in_order() -> None:
    findings = [
        {"sub_question_id": "sq1", "text": "a"},
        {"sub_question_id": "sq2", "text": "b"},
        {"sub_question_id": "sq1", "text": "c"},
    ]
    counts, by_branch = findings_index(findings)
    assert counts == {"sq1": 2, "sq2": 1}
    assert [f["text"] for f in by_branch["sq1"]] == ["a", "c"]
    assert findings_index([]) == ({}, {})


def test_a_branch_answer_gets_its_findings_its_completed_children_and_the_sources_they_cite() -> None:
    p = make_pass(
        {
            "sq1": {"id": "sq1", "status": "researching", "research_done": True},
            "sq1.1": {"id": "sq1.1", "parent_id": "sq1", "status": "completed", "synthesis": "A child [[src:b2]]."},
            "sq1.2": {"id": "sq1.2", "parent_id": "sq1", "status": "skipped", "synthesis": "Skipped [[src:c3]]."},
        }
    )
    task = synthesis_task(STATE, p, "sq1", [finding("sq1", "Own.", "a1")], SOURCES)
    assert task.node == "synthesize_branch" and "config" not in task.model_dump()
    assert [c.id for c in task.children] == ["sq1.1"]
    assert [s["id"] for s in task.sources] == ["a1", "b2"]


def test_the_revise_task_sees_a_copy_of_the_plan() -> None:
    p = make_pass({"sq1": {"id": "sq1", "status": "completed"}, "sq2": {"id": "sq2", "status": "pending"}})
    task = revise_task(STATE, p, ["sq1"])
    assert task.node == "revise_plan" and "config" not in task.model_dump()
    assert task.branch_order == ["sq1", "sq2"] and task.finished == ["sq1"]
    p.change("sq2", {"status": "skipped"})
    assert task.branches["sq2"].status == "pending"


CAPS = Caps(spent=0.0, reservation=0.0, exhausted=False, used=2, cap=10, out_of_iterations=False)


def branch(bid: str, **fields: Any) -> dict:
    return {"id": bid, "question_text": f"Question {bid}?", "priority": 0.5, "allocated_iterations": 4, **fields}


def test_a_research_chain_carries_its_branch_its_known_evidence_and_its_allotment() -> None:
    p = make_pass(
        {"sq1": branch("sq1", status="researching", iteration_count=1), "sq2": branch("sq2", status="researching")},
        adaptive_plan=False,
        max_depth=1,
        max_total_cost_usd=1.0,
    )
    known = {"sq1": [finding("sq1", "Known.", "d4")]}
    tasks = research_tasks(STATE, p, CAPS, ["sq1", "sq2"], [], known, SOURCES)
    first = tasks[0]
    assert [t.node for t in tasks] == ["research_chain", "research_chain"]
    assert "config" not in first.model_dump()  # nodes read the run's config from the runtime context
    assert first.branch.id == "sq1" and first.branch.iteration_count == 1
    assert first.known_findings == known["sq1"] and first.known_sources == [SOURCES["d4"]]
    assert first.answer_when_done and not first.others_wait
    assert first.branch_count == 2 and first.iterations_left == 8
    assert first.max_steps == 3  # what is left of its allocation
    assert 0 < first.max_cost_usd <= 1.0


def test_a_parent_is_not_answered_by_its_chain_and_waiting_work_shortens_the_chains() -> None:
    p = make_pass(
        {
            "sq1": branch("sq1", status="researching"),
            "sq1.1": branch("sq1.1", parent_id="sq1", status="pending"),
        },
        adaptive_plan=False,
        max_depth=1,
    )
    (task,) = research_tasks(STATE, p, CAPS, ["sq1"], [], {}, SOURCES)
    assert not task.answer_when_done
    assert task.others_wait  # sq1.1 waits for a slot


def test_in_step_mode_each_chain_runs_one_step() -> None:
    p = make_pass({"sq1": branch("sq1", status="researching")}, step_mode=True)
    (task,) = research_tasks(STATE, p, CAPS, ["sq1"], [], {}, SOURCES)
    assert task.max_steps == 1 and task.others_wait
