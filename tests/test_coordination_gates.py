"""The step, revision and drill-down gates of `coordinate` (`coordination/gates.py`).

`interrupt` is replaced by a scripted user, so each gate's loop runs without a graph: the
payload it shows, a refused answer re-opening it with the refusal, and what an answer changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from research_core.coordination import gates
from research_core.coordination.gates import (
    STOPPED_WARNING,
    add_drill_children,
    ask_until_valid,
    children_with_room,
    completed_not_shown,
    decide_drill_downs,
    open_revision_gate,
    open_step_gate,
)
from research_core.gates import asking
from research_core.planning.plan import PlanError
from tests.coordination_support import make_pass, records


class ScriptedUser:
    """Answers each `interrupt` with the next scripted answer and keeps the payloads it was shown."""

    def __init__(self, *answers: Any) -> None:
        self.answers: Iterator[Any] = iter(answers)
        self.shown: list[dict] = []

    def __call__(self, payload: dict) -> Any:
        self.shown.append(payload)
        return next(self.answers)


@pytest.fixture
def user(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    def script(*answers: Any) -> ScriptedUser:
        scripted = ScriptedUser(*answers)
        monkeypatch.setattr(asking, "interrupt", scripted)
        return scripted

    yield script


def test_a_refused_answer_reopens_the_gate_with_the_refusal(user: Any) -> None:
    scripted = user("maybe", "yes")

    def parse(answer: str) -> str:
        if answer != "yes":
            raise PlanError(f"{answer!r} is not an answer")
        return answer

    assert ask_until_valid(lambda error: {"error": error}, parse) == "yes"
    assert scripted.shown == [{"error": None}, {"error": "'maybe' is not an answer"}]


def branch(bid: str, status: str = "pending", **fields: Any) -> dict:
    return {"id": bid, "question_text": f"Question {bid}?", "priority": 0.5, "status": status, **fields}


def step_state(branches: dict[str, dict], **extra: Any) -> Any:
    return {"question": "Q", "branch_order": list(branches), "branches": branches, **extra}


def test_the_step_gate_shows_completed_branches_not_shown_before() -> None:
    p = make_pass({"a": branch("a", "completed"), "b": branch("b", "completed"), "c": branch("c")})
    p.acknowledged = ["a"]
    assert completed_not_shown(p) == ["b"]


def test_the_step_gate_stays_shut_outside_step_mode_or_with_nothing_new(user: Any) -> None:
    scripted = user()
    branches = {"a": branch("a", "completed")}
    auto = make_pass(dict(branches))
    open_step_gate(step_state(branches), auto)
    stepping = make_pass(dict(branches), step_mode=True)
    stepping.acknowledged = ["a"]
    open_step_gate(step_state(branches), stepping)
    assert scripted.shown == [] and auto.acknowledged == [] and stepping.updates == {}


def test_the_step_gate_applies_edits_and_a_stop(user: Any) -> None:
    branches = {"a": branch("a", "completed", synthesis="Answer A."), "b": branch("b")}
    scripted = user({"action": "stop", "edits": [{"id": "b", "priority": 0.9}]})
    p = make_pass({k: dict(v) for k, v in branches.items()}, step_mode=True)
    open_step_gate(step_state(branches), p)
    shown = scripted.shown[0]
    assert [c["id"] for c in shown["completed"]] == ["a"] and [c["id"] for c in shown["pending"]] == ["b"]
    assert p.acknowledged == ["a"]
    assert p.updates == {"b": {"priority": 0.9}} and p.branches["b"].priority == 0.9
    assert p.stop and p.warnings == [STOPPED_WARNING]
    assert p.log[-1]["message"] == "The user stopped the run at a step gate."


def test_an_edit_of_a_finished_branch_is_refused_and_the_step_gate_asks_again(user: Any) -> None:
    branches = {"a": branch("a", "completed"), "b": branch("b")}
    scripted = user({"edits": [{"id": "a", "skip": True}]}, "continue")
    p = make_pass({k: dict(v) for k, v in branches.items()}, step_mode=True)
    open_step_gate(step_state(branches), p)
    assert scripted.shown[0]["error"] is None
    assert "only pending branches can be edited" in scripted.shown[1]["error"]
    assert not p.stop and p.updates == {}


def test_an_accepted_revision_changes_the_plan_and_counts(user: Any) -> None:
    branches = {"a": branch("a", "completed"), "b": branch("b")}
    changes = {"add": [], "drop": ["b"], "reprioritize": {}}
    user("accept")
    p = make_pass({k: dict(v) for k, v in branches.items()})
    open_revision_gate(step_state(branches, revision_pending=changes, revisions_done=1), p)
    assert p.updates == {"b": {"status": "skipped", "stop_reason": "dropped by plan revision"}}
    assert p.extra["revision_pending"] is None and p.extra["revisions_done"] == 2
    assert p.extra["branch_order"] == ["a", "b"] and p.log[-1]["kind"] == "revision"


def test_a_rejected_revision_still_uses_up_one_of_the_revisions(user: Any) -> None:
    branches = {"a": branch("a", "completed"), "b": branch("b")}
    user("reject")
    p = make_pass({k: dict(v) for k, v in branches.items()})
    open_revision_gate(step_state(branches, revision_pending={"drop": ["b"]}), p)
    assert p.updates == {} and "branch_order" not in p.extra
    assert p.extra == {"revision_pending": None, "revisions_done": 1}
    assert p.log[-1]["message"] == "The plan revision was rejected."


def test_a_stopped_run_rejects_the_revision_without_asking(user: Any) -> None:
    scripted = user()
    branches = {"a": branch("a", "completed"), "b": branch("b")}
    p = make_pass({k: dict(v) for k, v in branches.items()}, stop=True)
    open_revision_gate(step_state(branches, revision_pending={"drop": ["b"]}), p)
    assert scripted.shown == [] and p.extra["revisions_done"] == 1 and p.updates == {}


def test_children_beyond_the_ceiling_are_dropped() -> None:
    children = [{"question_text": "One?"}, {"question_text": "Two?"}, {"question_text": "Three?"}]
    assert children_with_room(children, max_total=5, branch_count=3) == children[:2]
    assert children_with_room(children, max_total=3, branch_count=4) == []


PROPOSALS = [{"question_text": "Narrower one?", "priority": 0.7}, {"question_text": "Narrower two?", "priority": 0.4}]


def proposing(**fields: Any) -> dict:
    return branch("a", "researching", research_done=True, drill_status="proposed", drill_proposal=PROPOSALS, **fields)


def test_drill_downs_are_taken_automatically_outside_step_mode(user: Any) -> None:
    scripted = user()
    p = make_pass({"a": proposing(), "b": branch("b")})
    decide_drill_downs(step_state(p.branches), p)
    assert scripted.shown == []
    assert p.order == ["a", "a.1", "a.2", "b"] and p.extra["branch_order"] == p.order
    assert p.branches["a.1"].parent_id == "a" and p.branches["a"].drill_status == "approved"


def test_in_step_mode_the_user_picks_the_children(user: Any) -> None:
    scripted = user({"action": "approve", "children": [{"question_text": "Only this one?", "priority": 0.6}]})
    p = make_pass({"a": proposing(depth_reasoning="too broad")}, step_mode=True)
    decide_drill_downs(step_state(p.branches), p)
    assert scripted.shown[0]["reasoning"] == "too broad" and scripted.shown[0]["proposals"] == PROPOSALS
    assert [p.branches[b].question_text for b in p.order] == ["Question a?", "Only this one?"]


def test_a_rejected_or_stopped_drill_down_adds_nothing(user: Any) -> None:
    user("reject")
    rejected = make_pass({"a": proposing()}, step_mode=True)
    decide_drill_downs(step_state(rejected.branches), rejected)
    stopped = make_pass({"a": proposing()}, stop=True)
    decide_drill_downs(step_state(stopped.branches), stopped)
    for p in (rejected, stopped):
        assert p.updates == {"a": {"drill_status": "rejected"}} and p.order == ["a"]


def test_a_drill_down_without_room_under_the_ceiling_is_rejected() -> None:
    p = make_pass({"sq1": {"id": "sq1", "drill_status": "proposed"}}, max_total_sub_questions=1)
    add_drill_children(p, "sq1", [{"question_text": "Narrower?", "priority": 0.5}])
    assert p.updates == {"sq1": {"drill_status": "rejected"}}
    assert p.branches["sq1"].drill_status == "rejected"
    assert p.order == ["sq1"] and "branch_order" not in p.extra
    assert p.log[-1]["message"] == "Drill-down not taken."


def test_a_drill_down_with_no_children_is_rejected() -> None:
    p = make_pass({"sq1": {"id": "sq1", "drill_status": "proposed"}})
    add_drill_children(p, "sq1", [])
    assert p.updates == {"sq1": {"drill_status": "rejected"}}


# ---- the answer reaches the gate typed: read back once, never parsed or converted again ------------


def test_the_step_gate_applies_a_typed_answer_without_parsing_it_again(
    user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from research_core.gates import StepAnswer, parse_answer, plain_answer, read_payload

    branches = {"a": branch("a", "completed"), "b": branch("b")}
    payload = read_payload(gates.step_payload(step_state(branches), records(branches), ["a"], None))
    typed = parse_answer(payload, {"edits": [{"id": "b", "question_text": " New B? ", "skip": True}]})
    assert isinstance(typed, StepAnswer)

    def no_second_parse(*args: Any) -> Any:
        raise AssertionError("the gate parsed a typed answer again")

    monkeypatch.setattr(gates, "parse_step_answer", no_second_parse)
    user(plain_answer(typed))  # what the Runner sends
    p = make_pass({k: dict(v) for k, v in branches.items()}, step_mode=True)
    open_step_gate(step_state(branches), p)
    assert p.updates == {"b": {"question_text": "New B?", "status": "skipped", "stop_reason": "skipped by the user"}}


def test_an_old_checkpoints_step_answer_is_read_into_the_typed_answer_at_the_gate(user: Any) -> None:
    branches = {"a": branch("a", "completed"), "b": branch("b"), "c": branch("c")}
    # a word and the edits dict older callers sent, and an answer the gate cannot read
    scripted = user(["continue"], {"action": "continue", "edits": [{"id": "b", "priority": 0.2}]})
    p = make_pass({k: dict(v) for k, v in branches.items()}, step_mode=True)
    open_step_gate(step_state(branches), p)
    assert scripted.shown[1]["error"] == "Answer 'continue', 'stop', or an object with 'action' and 'edits'."
    assert p.updates == {"b": {"priority": 0.2}} and not p.stop


def test_a_typed_step_answer_for_a_branch_that_is_not_pending_is_refused_at_the_gate(user: Any) -> None:
    branches = {"a": branch("a", "completed"), "b": branch("b")}
    scripted = user({"action": "continue", "updates": {"a": {"priority": 0.1}}}, "continue")
    p = make_pass({k: dict(v) for k, v in branches.items()}, step_mode=True)
    open_step_gate(step_state(branches), p)
    assert scripted.shown[1]["error"] == "a is completed; only pending branches can be edited."
    assert p.updates == {}


def test_review_and_coordinate_gates_share_the_one_ask_loop(user: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from research_core.configuration import RunConfig
    from research_core.planning import review

    scripted = user("maybe", "cancel")
    monkeypatch.setattr(review, "review_payload", lambda state, services, error: {"error": error})
    runtime = SimpleNamespace(context=SimpleNamespace(config=RunConfig()))
    update = review.review_plan({"question": "Q", "branch_order": [], "branches": {}}, runtime)
    assert update["status"] == "cancelled"
    assert scripted.shown == [
        {"error": None},
        {"error": "Unknown answer 'maybe': answer 'approve', 'cancel' or an edited plan."},
    ]
