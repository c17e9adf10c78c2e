"""What a branch may still spend (`research/allotment.py`): one rule for a chain and its steps.

A step asks for a drill-down only when its allotment leaves room for the children; a step or a
chain handed no allotment has none, so it never drills down into iterations nobody gave it.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from research_core.llm.model_settings import with_model_settings
from research_core.research.allotment import iterations_after
from research_core.research.chain import chain_step
from research_core.research.step import research_step
from research_core.schemas import SubQuestion
from research_core.services import Services
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"


def test_the_iterations_left_are_the_allotment_less_the_steps_and_none_without_one() -> None:
    assert iterations_after(6, 2) == 4
    assert iterations_after("6", 1) == 5  # as a checkpoint's JSON may hold it
    assert iterations_after(None, 0) == 0
    assert iterations_after(None, 1) == -1


def last_step(tmp_path, url: str, iterations_left: int | None, *, chain: bool):
    """One research step of a branch on its last allotted iteration, which may drill down if given room."""
    runner = make_runner(tmp_path, url)
    cfg = with_model_settings(
        config(sub_question_min_iterations=1, drill_down_priority=0.0, drill_down_iterations=1, max_depth=2),
        embedded=False,
    )
    runtime = SimpleNamespace(context=Services(llm=runner.llm, backends=[FixtureSearch()], config=cfg))
    branch = SubQuestion(id="sq_001", question_text="How fast is React?", priority=0.9, allocated_iterations=1)
    payload = {"question": QUESTION, "branch": branch.model_dump(), "findings": [], "branch_count": 1}
    if chain:
        payload.update(known_findings=[], known_sources=[])
    if iterations_left is not None:
        payload["iterations_left"] = iterations_left
    return (chain_step if chain else research_step)(payload, runtime)  # type: ignore[arg-type]


@pytest.mark.parametrize("chain", [False, True], ids=["step", "chain"])
def test_a_step_without_an_allotment_asks_for_no_drill_down(tmp_path, chain: bool) -> None:
    with serve(ScriptedLLM()) as (url, script):
        update = last_step(tmp_path / "none", url, None, chain=chain)
        assert update["branches"]["sq_001"]["research_done"]
        assert script.count("evaluate_depth") == 0
        last_step(tmp_path / "room", url, 5, chain=chain)  # with room for a child, the depth is judged
        assert script.count("evaluate_depth") == 1
