"""Branches are researched as independent chains: a fast branch is not held back by a slow one.

Scripted LLM over real HTTP, real SQLite checkpoints; the search backend holds the slow
branch's first search until the fast branch has searched three times, which only a scheduler
without a per-round barrier can do.
"""

from __future__ import annotations

import threading

import pytest
from langgraph.graph import END

from research_core.configuration import build_run_config
from research_core.coordination.tasks import work_waits_on_branches
from research_core.research.chain import chain_continues
from research_core.schemas import Source, SubQuestion
from tests.conftest import make_runner
from tests.fakes.search import FixtureSearch

QUESTION = "How do SQLite and PostgreSQL handle concurrent writers?"
FAST = "Fast branch: how does SQLite handle writers?"
SLOW = "Slow branch: how does PostgreSQL handle writers?"
ITERATIONS = 3


class HeldSearch(FixtureSearch):
    """Fixture search that holds the slow branch's first search until the test releases it."""

    def __init__(self) -> None:
        super().__init__()
        self.fast_searches = 0
        self.fast_done = threading.Event()
        self.release_slow = threading.Event()
        self.slow_held = False
        self.lock = threading.Lock()

    def search(self, query: str, max_results: int) -> list[Source]:
        if query.startswith("Fast"):
            with self.lock:
                self.fast_searches += 1
                round_ = self.fast_searches
                if self.fast_searches == ITERATIONS:
                    self.fast_done.set()
            # a new passage every round: a branch does not read the same passage twice
            lead = f"SQLite round {round_} notes: one writer commits at a time. "
            return [s.model_copy(update={"snippet": lead + s.snippet}) for s in super().search(query, max_results)]
        if query.startswith("Slow") and not self.slow_held:
            self.slow_held = True
            # Never hang the suite: a scheduler with a round barrier fails the test instead.
            self.release_slow.wait(30)
        return super().search(query, max_results)


def _config(**extra):
    values = {
        "mode": "hierarchical",
        "auto_approve": True,
        "parallel": 2,
        "search_backends": ["fixture"],
        "adaptive_plan": False,
        "coverage_check": False,
        "verify_citations": False,
        "max_depth": 1,
        "sub_question_min_iterations": ITERATIONS,
        "sub_question_max_iterations": ITERATIONS,
        "max_iterations": 2 * ITERATIONS + 4,
        "findings_for_stop": 1000,
        "confidence_for_stop": 1.0,
    }
    values.update(extra)
    return build_run_config("general", **values)


PLAN = {
    "question": QUESTION,
    "strategy": "multi-faceted",
    "sub_questions": [
        {"id": "sq_001", "question_text": FAST, "priority": 0.9},
        {"id": "sq_002", "question_text": SLOW, "priority": 0.8},
    ],
}


def test_a_fast_branch_keeps_researching_while_a_slow_one_waits_and_shows_live(tmp_path, scripted):
    url, script = scripted
    search = HeldSearch()
    runner = make_runner(tmp_path, url, backends=[search])
    run_id = runner.start_background(QUESTION, _config(), plan=PLAN)
    try:
        assert search.fast_done.wait(30), "the fast branch waited for the slow branch's step"
        # The fast branch's steps and its answer are checkpointed in its chain; the live view shows
        # them while the slow branch's first step is still in flight.
        deadline = threading.Event()
        for _ in range(200):
            snap = runner.snapshot(run_id)
            fast = next(b for b in snap.branches if b.id == "sq_001")
            if fast.status == "completed":
                break
            deadline.wait(0.05)
        assert fast.iteration_count == ITERATIONS and fast.research_done
        assert fast.status == "completed" and fast.synthesis, "the fast branch's answer waited"
        assert [f for f in snap.findings if f.sub_question_id == "sq_001"]
        evaluations = [e for e in snap.log if e.branch == "sq_001" and e.kind == "evaluate"]
        assert len(evaluations) == ITERATIONS
        slow = next(b for b in snap.branches if b.id == "sq_002")
        assert slow.status == "researching" and not slow.iteration_count
        assert not [f for f in snap.findings if f.sub_question_id == "sq_002"]
        # its research calls and its answer; the slow step in flight is costed when it ends
        assert snap.costs.llm_calls == 2 * ITERATIONS + 1
        assert snap.costs.by_node.get("synthesize_branch")
    finally:
        search.release_slow.set()
    final = runner.wait(run_id, timeout=60)
    assert final.status == "completed", final.error
    result = runner.result(run_id)
    assert [sq.iteration_count for sq in result.sub_questions] == [ITERATIONS, ITERATIONS]
    assert all(sq.findings for sq in result.sub_questions)
    # every call of the run is costed exactly once: no chain step was charged twice
    assert result.costs.llm_calls == len(script.calls)


def test_step_mode_still_returns_to_the_gate_after_every_step(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url, backends=[FixtureSearch()])
    snap = runner.start(QUESTION, _config(step_mode=True, parallel=1), plan=PLAN)
    assert snap.status == "awaiting_step", snap.error
    # parallel 1: the first branch researched to the end, then synthesized, then the gate
    done = snap.pending["completed"]
    assert [b["id"] for b in done] == ["sq_001"] and done[0]["iteration_count"] == ITERATIONS
    assert [b["id"] for b in snap.pending["pending"]] == ["sq_002"]


def test_a_run_cap_of_iterations_is_shared_between_the_chains(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url, backends=[FixtureSearch()])
    # Cap: 9 iterations less 4 reserved (decomposition, two syntheses, report) = 5 research steps.
    snap = runner.start(QUESTION, _config(max_iterations=9), plan=PLAN)
    assert snap.status == "completed", snap.error
    counts = [b.iteration_count for b in snap.branches]
    assert sum(counts) == 5 and counts == [3, 2]
    assert any("Iteration budget spent" in w for w in snap.warnings)


def _branch(bid: str, **extra) -> SubQuestion:
    return SubQuestion(id=bid, question_text=f"Question {bid}?", priority=0.5, **extra)


def test_chains_run_to_their_own_end_only_when_nothing_waits_for_a_branch_to_finish():
    quiet = build_run_config("general", adaptive_plan=False, max_depth=1)
    two = {"a": _branch("a", status="researching"), "b": _branch("b", status="researching")}
    assert not work_waits_on_branches(quiet, "hierarchical", 0, two, ["a", "b"], 10)
    # a branch waiting for a free slot, or a parent waiting for its children
    waiting = {**two, "c": _branch("c")}
    assert work_waits_on_branches(quiet, "hierarchical", 0, waiting, ["a", "b"], 10)
    # ... but not one being answered beside the chains, nor one already done
    assert not work_waits_on_branches(quiet, "hierarchical", 0, waiting, ["a", "b", "c"], 10)
    assert not work_waits_on_branches(
        quiet, "hierarchical", 0, {**two, "c": _branch("c", status="completed")}, ["a", "b"], 10
    )
    # a plan revision the reviser may still make after a branch completes
    adaptive = build_run_config("general", adaptive_plan=True, max_depth=1, max_revisions=2)
    assert work_waits_on_branches(adaptive, "hierarchical", 1, two, ["a", "b"], 10)
    assert not work_waits_on_branches(adaptive, "hierarchical", 2, two, ["a", "b"], 10)
    # a drill-down an important branch may propose
    deep = build_run_config("general", adaptive_plan=False, max_depth=2, drill_down_priority=0.4)
    assert work_waits_on_branches(deep, "hierarchical", 0, two, ["a", "b"], 10)
    assert not work_waits_on_branches(deep, "hierarchical", 0, two, ["a", "b"], 1)  # no iterations left for one
    # step mode returns to the gate after every step anyway
    assert work_waits_on_branches(
        build_run_config("general", adaptive_plan=False, max_depth=1, step_mode=True),
        "hierarchical",
        0,
        two,
        ["a", "b"],
        10,
    )


@pytest.mark.parametrize(
    ("branch", "extra", "expected"),
    [
        # research ended before the chain's allotment: answered here, beside the other chains
        ({"research_done": True}, {"steps": 1, "others_wait": True}, "chain_synthesis"),
        # ended at the segment's end while work waits: coordinate answers it beside the next segment
        ({"research_done": True}, {"steps": 3, "others_wait": True}, END),
        ({"research_done": True}, {"steps": 3, "others_wait": False}, "chain_synthesis"),
        # a proposed drill-down, or children under it: the parent is answered after its children
        ({"research_done": True, "drill_status": "proposed"}, {"steps": 1}, END),
        ({"research_done": True}, {"steps": 1, "answer_when_done": False}, END),
        # research goes on until the allotment of steps or dollars is used
        ({}, {"steps": 2}, "chain_step"),
        ({}, {"steps": 3}, END),
        ({}, {"steps": 1, "costs": [{"cost_usd": 0.2}]}, END),
    ],
)
def test_a_chain_answers_its_branch_itself_unless_someone_waits_at_the_segment_end(branch, extra, expected):
    state = {
        "branch": _branch("a", **branch),
        "max_steps": 3,
        "max_cost_usd": 0.1,
        "answer_when_done": True,
        "others_wait": False,
        **extra,
    }
    assert chain_continues(state) == expected
