"""How a drive of a run ended, as its record says (research_core/runs/outcome.py)."""

from __future__ import annotations

import logging

import pytest
from langgraph.types import Interrupt, StateSnapshot

from research_core.llm.client import LLMError
from research_core.llm.local_model import LocalModelError
from research_core.planning.plan import PlanError
from research_core.runs.errors import RunError
from research_core.runs.outcome import decided_modes, failure_message, paused_status
from research_core.search.base import SearchError


def paused_at(kind: str | None) -> StateSnapshot:
    value = {"kind": kind} if kind else None
    return StateSnapshot(
        values={},
        next=("gate",),
        config={},
        metadata=None,
        created_at=None,
        parent_config=None,
        tasks=(),
        interrupts=(Interrupt(value=value, id="i"),),
    )


@pytest.mark.parametrize(
    ("error", "recorded"),
    [
        (LLMError("The model server did not answer in 60 s."), "The model server did not answer in 60 s."),
        (RunError("Run r1 is already running."), "Run r1 is already running."),
        (PlanError("sq_001: the question text is empty."), "The plan is invalid: sq_001: the question text is empty."),
        (SearchError("ddg", "Web search is unreachable."), "Web search is unreachable."),
        (LocalModelError("The embedded model is missing: run bash scripts/setup.sh."), "The embedded model is missing"),
    ],
)
def test_errors_that_say_what_to_do_are_recorded_as_their_message_without_a_traceback(error, recorded, caplog):
    caplog.set_level(logging.INFO)
    assert failure_message("r1", error).startswith(recorded)
    assert not any(r.exc_info for r in caplog.records)


def test_engine_errors_beyond_the_llm_and_the_run_leave_one_warning_line(caplog):
    caplog.set_level(logging.INFO)
    failure_message("r1", SearchError("ddg", "Web search is unreachable."))
    failure_message("r2", LLMError("timed out"))
    assert [r.getMessage() for r in caplog.records] == ["run r1 failed: Web search is unreachable."]


def test_a_bug_is_recorded_with_its_type_and_logged_with_its_traceback(caplog):
    caplog.set_level(logging.INFO)
    try:
        raise KeyError("branches")
    except KeyError as exc:
        assert failure_message("r1", exc) == "KeyError: 'branches'"
    assert caplog.records[-1].exc_info is not None


def test_a_run_paused_at_the_plan_review_awaits_review_and_at_any_other_gate_a_step():
    assert paused_status(paused_at("review")) == "awaiting_review"
    for kind in ("step", "drill_down", "revision", None):
        assert paused_status(paused_at(kind)) == "awaiting_step"


def test_the_mode_is_recorded_as_soon_as_a_step_decides_it():
    assert decided_modes({"classify_question": {"mode": "hierarchical", "log": []}}) == ["hierarchical"]
    assert decided_modes({"research_step": {"findings": []}, "coordinate": None}) == []
    assert decided_modes({"classify_question": {"mode": ""}}) == []
    assert decided_modes(("__interrupt__", ())) == []
