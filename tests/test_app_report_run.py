"""The Report, Run and New research pages under AppTest: hypotheses, templates, citations, gates, errors.

Same set-up as tests/test_app_pages.py: a tmp database with library documents, the scripted
OpenAI-compatible server and ARBOR_SEARCH=library. Runs that need web-like (http) sources use a
runner on the same database with the fixture search corpus.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

import ui.services
from research_core.configuration import LLMSettings
from research_core.runs.runner import Runner
from tests.fakes.search import FixtureSearch
from tests.test_app_pages import (
    QUESTION,
    app,
    button,
    no_exception,
    open_page,
    run_config,
    runner_for,
    texts,
    until,
)

FINISHED = ("completed", "completed_with_fallback", "failed")


def web_runner(env: dict) -> Runner:
    """A runner on the test database whose sources are http(s) pages from the fixture corpus."""
    llm = LLMSettings(provider="openai", base_url=env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0)
    return Runner(env["db"], llm_settings=llm, api_key="sk-test", backends=[FixtureSearch()])


def metric(at, label: str) -> str:
    matches = [m.value for m in at.metric if m.label == label]
    assert matches, f"no metric {label!r}; metrics: {[m.label for m in at.metric]}"
    return matches[0]


def stored_config(db: Path, skip: tuple[str, ...] = ()) -> dict:
    """The configuration of the one run not in `skip`."""
    runs = [r for r in Runner(db).runs() if r.id not in skip]
    assert len(runs) == 1, runs
    return {"id": runs[0].id, **Runner(db).store.get(runs[0].id).config}


# ---- 1. hypothesis mode ----------------------------------------------------------------------------


def test_new_research_offers_hypothesis_mode_and_explains_it(env: dict) -> None:
    at = app()
    assert "Hypothesis (propose and test hypotheses)" in at.radio(key="nr_mode").options
    at.radio(key="nr_mode").set_value("hypothesis").run()
    assert "judges it validated, refuted or inconclusive" in texts(at.caption)
    at.text_area(key="nr_question").input(QUESTION).run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    until(at, lambda a: [t.value for t in a.title] == ["Review plan"])
    assert stored_config(env["db"])["mode"] == "hypothesis"
    assert env["scripted"].count("propose_hypotheses") == 1 and env["scripted"].count("decompose") == 0
    assert "Each row is a hypothesis to test" in texts(at.caption)


def refute_with_pivot(body: dict) -> str:
    return json.dumps(
        {
            "verdict": "refuted",
            "evidence": "The benchmarks contradict it [1].",
            "confidence": 6,
            "pivot": "Write concurrency, not cost, decides the choice.",
            "reasoning": "contradicted",
        }
    )


def test_a_finished_hypothesis_run_shows_verdicts_evidence_and_pivots(env: dict) -> None:
    env["scripted"].script["judge_hypothesis"] = [refute_with_pivot]
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(mode="hypothesis", auto_approve=True, parallel=1, max_hypotheses=3))
    assert snap.status == "completed", snap.error
    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    body = texts(at.markdown)
    assert "#### Hypotheses" in body and "#### Branch syntheses" in body
    table = at.dataframe[0].value  # the hypotheses come before the sources
    assert list(table["verdict"]) == ["Refuted", "Validated", "Validated"]
    assert list(table["confidence"]) == ["6/10", "7/10", "7/10"]
    assert table["pivot"].iloc[0] == "Write concurrency, not cost, decides the choice."
    assert list(table["pivot of"]) == ["", "", "1"]  # the third hypothesis is the pivot of the first
    assert "1 refuted" in texts(at.caption) and "2 validated" in texts(at.caption)
    assert "The benchmarks contradict it" in body  # the evidence, on the refuted hypothesis' card
    assert "**Suggested pivot:** Write concurrency, not cost, decides the choice. (tested as 3)" in body
    assert "Refuted" in body and "Validated" in body  # the verdict badges
    branches = [e for e in at.expander if not e.label.startswith("What the sources say")]  # not the quotes
    assert len(branches) == 3  # one branch synthesis per hypothesis
    assert "Verdict: refuted" in body


# ---- 2. templates and the iteration budget ---------------------------------------------------------------


def test_the_iteration_box_follows_the_template_until_the_user_changes_it(env: dict) -> None:
    at = app()
    assert at.number_input(key="nr_max_iterations").value == 20
    for template, budget in (("deep_dive", 30), ("quick_fact", 4), ("academic", 24), ("general", 20)):
        at.selectbox(key="nr_template").set_value(template).run()
        assert at.number_input(key="nr_max_iterations").value == budget, template
        assert f"a budget of {budget} iterations" in texts(at.caption)
    at.selectbox(key="nr_template").set_value("auto").run()
    at.text_area(key="nr_question").input("What is write-ahead logging?").run()
    assert at.number_input(key="nr_max_iterations").value == 4  # auto picks quick fact
    assert "Auto picks **quick fact**" in texts(at.caption)
    at.selectbox(key="nr_template").set_value("deep_dive").run()
    at.number_input(key="nr_max_iterations").set_value(12).run()
    at.text_area(key="nr_question").input(QUESTION).run()
    assert at.number_input(key="nr_max_iterations").value == 12  # the user's value stays
    button(at, "Propose plan").click().run()
    no_exception(at)
    config = stored_config(env["db"])
    assert config["template"] == "deep_dive" and config["max_iterations"] == 12
    assert config["sub_question_max_iterations"] == 6  # the rest of the template still applies


def test_a_template_budget_reaches_the_run_unchanged(env: dict) -> None:
    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    at.selectbox(key="nr_template").set_value("deep_dive").run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    config = stored_config(env["db"])
    assert config["template"] == "deep_dive" and config["max_iterations"] == 30


def test_going_deep_settings_reach_the_run(env: dict) -> None:
    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    # the template's choices by default: deep dive drills into adequate branches too
    at.selectbox(key="nr_template").set_value("deep_dive").run()
    button(at, "Propose plan").click().run()
    first = stored_config(env["db"])
    assert first["drill_down_on"] == "adequate"
    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    at.number_input(key="nr_max_depth").set_value(3)
    at.selectbox(key="nr_drill_down_on").set_value("superficial")
    at.toggle(key="nr_adaptive_plan").set_value(False)
    at.toggle(key="nr_verify_citations").set_value(False)
    at.multiselect(key="nr_sticky").set_value(["library"]).run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    config = stored_config(env["db"], skip=(first["id"],))
    assert (config["max_depth"], config["drill_down_on"]) == (3, "superficial")
    assert (config["adaptive_plan"], config["verify_citations"], config["coverage_check"]) == (False, False, True)
    assert config["sticky_backends"] == ["library"]


# ---- 3 and 4. citations, citation checks and coverage on the report ----------------------------------------


def test_report_citations_link_to_their_sources_and_missing_ones_are_dropped(env: dict) -> None:
    env["scripted"].script["assess_coverage"] = [
        json.dumps(
            {
                "covered": ["component model", "learning curve"],
                "gaps": ["hosting costs"],
                "sufficient": True,
                "reasoning": "scripted",
            }
        )
    ]
    runner = web_runner(env)
    snap = runner.start(
        "Compare React and Vue for building web applications",
        run_config(auto_approve=True, search_backends=["fixture"]),
    )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    first = result.sources[0]
    assert first.url.startswith("https://")
    result.final_answer = "Components are the core idea [1]. A fabricated claim [99].\n\nIn code: `x[2]`."
    runner.store.update(snap.run_id, result_json=result.model_dump_json())

    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    body = texts(at.markdown)
    assert f"[\\[1\\]](<{first.url}>" in body  # [1] is a link to source 1
    assert "[99]" not in body and "A fabricated claim." in body
    assert "1 citation of sources that are not in the list was removed." in texts(at.caption)
    assert "`x[2]`" in body  # code is left alone
    assert "[\\[1\\]](<https://" in texts(at.expander[0].markdown)  # branch syntheses link too

    checked, supported = result.synthesis.citations_checked, result.synthesis.citations_supported
    assert checked > 0
    assert metric(at, "Citations supported") == f"{supported} / {checked}"
    # covered: the three branches answered from evidence; gaps: the model's "hosting costs", added
    assert metric(at, "Coverage") == "3 of 4"
    assert "**Gaps:** :orange[hosting costs]" in body
    assert "**Covered:** What are the core facts about Compare React and Vue" in body


def test_a_run_without_checks_or_coverage_says_so(env: dict) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True, verify_citations=False, coverage_check=False))
    assert snap.status == "completed", snap.error
    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    assert metric(at, "Citations supported") == "not checked"
    assert metric(at, "Coverage") == "not assessed"


# ---- 5. gates on the Run page ----------------------------------------------------------------------------


def superficial(body: dict) -> str:
    return json.dumps(
        {
            "depth": "superficial",
            "reasoning": "only generic facts, nothing on write contention",
            "drill_into": [
                "How does SQLite's write-ahead log behave under load?",
                "How does PostgreSQL's MVCC handle many writers?",
            ],
        }
    )


def drive_to(runner: Runner, run_id: str, kind: str) -> dict:
    """Answer every other gate until the run waits at a gate of `kind`; returns its payload."""
    snap = runner.snapshot(run_id)
    for _ in range(20):
        assert snap.status == "awaiting_step", (snap.status, snap.error)
        if snap.pending["kind"] == kind:
            return snap.pending
        answer = {"step": "continue", "revision": "reject", "drill_down": "reject"}[snap.pending["kind"]]
        snap = runner.resume(run_id, answer)
    raise AssertionError(f"no {kind} gate")


def wait_for_new_gate(runner: Runner, run_id: str, before: dict, timeout: float = 60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        snap = runner.snapshot(run_id)
        if snap.status in FINISHED or (snap.status == "awaiting_step" and snap.pending != before):
            return snap
        time.sleep(0.1)
    raise AssertionError("the gate was not answered")


def test_drill_down_gate_shows_the_reasoning_and_researches_an_edited_child(env: dict) -> None:
    env["scripted"].script["evaluate_depth"] = [superficial]
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1, max_iterations=30))
    pending = drive_to(runner, snap.run_id, "drill_down")
    parent = pending["branch"]["id"]

    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "Go deeper?" in texts(at.subheader)
    body = texts(at.markdown)
    assert "**superficial**" in body and "only generic facts, nothing on write contention" in body
    at.session_state[f"drill_editor_{snap.run_id}_{parent}"] = {
        "edited_rows": {
            0: {"question_text": "How does WAL mode cope with 50 concurrent writers?", "priority": 0.9},
            1: {"remove": True},
        },
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    no_exception(at)
    assert not at.error
    button(at, "Research these").click().run()
    no_exception(at)
    after = wait_for_new_gate(runner, snap.run_id, pending)
    children = [b for b in after.branches if b.parent_id == parent]
    assert [(c.question_text, c.priority) for c in children] == [
        ("How does WAL mode cope with 50 concurrent writers?", 0.9)
    ]
    questions = [b.question_text for b in after.branches]
    assert "How does PostgreSQL's MVCC handle many writers?" not in questions  # the removed one


def test_drill_down_gate_refuses_an_empty_child_and_all_removed(env: dict) -> None:
    env["scripted"].script["evaluate_depth"] = [superficial]
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1, max_iterations=30))
    pending = drive_to(runner, snap.run_id, "drill_down")
    key = f"drill_editor_{snap.run_id}_{pending['branch']['id']}"
    at = open_page(app(snap.run_id), "app_pages/run.py")
    at.session_state[key] = {"edited_rows": {0: {"question_text": "  "}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert "Child 1: the question text is empty." in texts(at.error)  # the gate's own refusal
    assert button(at, "Research these").disabled
    at.session_state[key] = {
        "edited_rows": {0: {"remove": True}, 1: {"remove": True}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    assert "Every question is removed" in texts(at.warning)
    assert button(at, "Research these").disabled
    assert not button(at, "Not needed").disabled


def test_revision_gate_shows_the_revisers_reasons(env: dict) -> None:
    env["scripted"].script["revise_plan"] = [
        json.dumps(
            {
                "add": [
                    {
                        "question": "What do backups and restores look like for each?",
                        "priority": 0.5,
                        "rationale": "operators restore more often than they migrate",
                    }
                ],
                "drop": ["sq_003"],
                "reprioritize": {"sq_002": 0.3},
                "reasoning": "backups matter for small teams",
            }
        )
    ]
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1, max_iterations=30))
    drive_to(runner, snap.run_id, "revision")
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "Proposed change to the plan" in texts(at.subheader)
    body = texts(at.markdown)
    assert "**Why:** backups matter for small teams" in body
    assert "What do backups and restores look like for each (SQLite, PostgreSQL)?" in body
    assert "operators restore more often than they migrate" in body
    assert ":red[drop] 3 · What do practitioners recommend for" in body
    assert ":orange[priority] 2 · " in body and ": 0.80 → 0.30" in body


# ---- 8. unreadable results and deleted runs ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ("{not json", "Invalid JSON"),
        ('{"run_id": "x"}', "Field required"),
    ],
)
def test_an_unreadable_result_shows_a_clear_error(env: dict, stored: str, message: str) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    runner.store.update(snap.run_id, result_json=stored)
    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    errors = texts(at.error)
    assert f"The report of run `{snap.run_id}` could not be read" in errors
    assert message in errors and "damaged" in errors
    assert "Open the run" in [link.label for link in at.get("page_link")]


def test_a_run_deleted_during_the_live_view_says_so(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1))
    original = Runner.snapshot

    def snapshot(self: Runner, run_id: str):
        if sys._getframe(1).f_code.co_name == "live_view":  # the poll after the page was drawn
            self.store.delete(run_id)
        return original(self, run_id)

    monkeypatch.setattr(ui.services, "run_is_active", lambda run_id: True)  # another tab is driving it
    monkeypatch.setattr(Runner, "snapshot", snapshot)
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "it was deleted while you were watching it" in texts(at.error)
    assert "History" in [link.label for link in at.get("page_link")]
    assert Runner(env["db"]).runs() == []
