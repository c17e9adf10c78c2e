"""Compare and History under AppTest: flat versus hierarchical, the judgement, branch re-runs.

Same setup as tests/test_app_pages.py: a tmp database with library documents, the scripted
OpenAI-compatible server and ARBOR_SEARCH=library, so nothing touches the network.
"""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.test_app_pages import (
    APP,
    QUESTION,
    app,
    button,
    no_exception,
    open_page,
    run_config,
    runner_for,
    texts,
    until,
    wait_for,
)

METRICS = [
    "Mode",
    "Status",
    "Time",
    "Iterations",
    "LLM calls",
    "Tokens",
    "Cost (USD)",
    "Findings",
    "Distinct sources",
    "Statements supported",
    "Citations supported",
    "Coverage",
]


def metrics_table(at: AppTest):
    """The metrics table (the first table of the Compare page), indexed by metric."""
    return at.dataframe[0].value.set_index("metric")


def compare_at(left: str, right: str) -> AppTest:
    """A fresh session opening Compare with the pair in the URL, like a reloaded tab."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["left"] = left
    at.query_params["right"] = right
    at.run()
    return open_page(at, "app_pages/compare.py")


def judged(at: AppTest) -> bool:
    return "More complete:" in texts(at.markdown)


# ---- compare two finished runs ---------------------------------------------------------------------


def test_comparing_two_finished_runs_shows_every_figure_and_the_judgement(env: dict) -> None:
    # the judge sees flat as A first, then hierarchical as A: it prefers the hierarchical report's
    # completeness in both orders, but its "organised" pick follows the order, so that one has no winner
    first = {
        "more_complete": "B",
        "better_organised": "A",
        "better_supported": "tie",
        "reasoning": "Report B also covers concurrent writers and replication.",
    }
    second = {
        "more_complete": "A",
        "better_organised": "A",
        "better_supported": "tie",
        "reasoning": "Report A answers every part of the question, with sections.",
    }
    env["scripted"].script["compare_answers"] = [json.dumps(first), json.dumps(second)]
    runner = runner_for(env)
    flat = runner.start(QUESTION, run_config(auto_approve=True, mode="flat"))
    hier = runner.start(QUESTION, run_config(auto_approve=True))
    at = open_page(app(), "app_pages/compare.py")
    at.selectbox(key="compare_left").set_value(flat.run_id)
    at.selectbox(key="compare_right").set_value(hier.run_id).run()
    no_exception(at)

    table = metrics_table(at)
    assert list(table.index) == METRICS
    flat_result, hier_result = runner.result(flat.run_id), runner.result(hier.run_id)
    assert list(table.loc["Mode"]) == ["flat", "hierarchical"]
    assert list(table.loc["Status"]) == ["Completed", "Completed"]
    assert list(table.loc["LLM calls"]) == [str(flat_result.costs.llm_calls), str(hier_result.costs.llm_calls)]
    assert list(table.loc["Findings"]) == [
        str(flat_result.synthesis.total_findings),
        str(hier_result.synthesis.total_findings),
    ]
    assert all(" of " in value for value in table.loc["Citations supported"])  # e.g. "4 of 4 (100%)"
    assert all(" of " in value for value in table.loc["Statements supported"])  # every statement counted
    # coverage counts what was researched: the flat run's one branch, the hierarchical run's three
    assert list(table.loc["Coverage"]) == ["1 covered, 0 gaps", "3 covered, 0 gaps"]
    body = texts(at.markdown)
    assert "#### Left (flat)" in body and "#### Right (hierarchical)" in body
    assert body.count("The research answers the question") == 1  # the hierarchical report, once
    flat_side = body.split("#### Left (flat)", 1)[1].split("#### Right (hierarchical)", 1)[0]
    assert "SQLite is an embedded database" in flat_side  # the flat report

    assert env["scripted"].count("compare_answers") == 0  # judging is the researcher's choice
    button(at, "Judge the two reports").click().run()
    until(at, judged)
    no_exception(at)
    body = texts(at.markdown)
    assert "More complete: **Right (hierarchical)**" in body
    assert "Better organised: no winner (the judge's pick changed when the reports were swapped)" in body
    assert "Better supported: tie" in body
    assert "Report B also covers concurrent writers and replication" in body
    assert "Report A answers every part of the question, with sections" in body
    captions = texts(at.caption)
    assert "Order 1: A = Left (flat), B = Right (hierarchical)" in captions
    assert "Order 2: A = Right (hierarchical), B = Left (flat)" in captions
    assert "The judgement took 2 LLM calls" in captions
    assert env["scripted"].count("compare_answers") == 2
    assert button(at, "Judge again")

    # the judgement belongs to the server: a reloaded tab with the pair in its URL shows it again
    again = compare_at(flat.run_id, hier.run_id)
    no_exception(again)
    assert again.selectbox(key="compare_left").value == flat.run_id
    assert again.selectbox(key="compare_right").value == hier.run_id
    assert "More complete: **Right (hierarchical)**" in texts(again.markdown)
    assert env["scripted"].count("compare_answers") == 2


def test_a_failing_judge_says_so_and_counts_its_calls(env: dict) -> None:
    env["scripted"].script["compare_answers"] = "not json at all"
    runner = runner_for(env)
    one = runner.start(QUESTION, run_config(auto_approve=True, mode="flat"))
    two = runner.start(QUESTION, run_config(auto_approve=True))
    at = compare_at(one.run_id, two.run_id)
    button(at, "Judge the two reports").click().run()
    until(at, judged)
    no_exception(at)
    assert "More complete: not judged" in texts(at.markdown)
    assert "One order could not be judged" in texts(at.warning)
    calls = env["scripted"].count("compare_answers")
    assert calls >= 2 and f"The judgement took {calls} LLM calls" in texts(at.caption)


# ---- one question, both modes ---------------------------------------------------------------------


def test_researching_one_question_both_ways_ends_with_both_reports_side_by_side(env: dict) -> None:
    env["scripted"].latency_by_task["plan_queries"] = 0.3  # long enough to watch the progress
    at = open_page(app(), "app_pages/compare.py")
    assert "at least two finished runs" in texts(at.info)
    at.text_area(key="cmp_question").input(QUESTION)
    at.number_input(key="cmp_max_iterations").set_value(12)
    assert at.checkbox(key="cmp_parallel").value is True  # an OpenAI-compatible endpoint takes both at once
    button(at, "Research both ways").click().run()
    no_exception(at)

    runner = runner_for(env)
    runs = runner.runs()
    assert sorted(r.mode for r in runs) == ["flat", "hierarchical"]
    flat_id = next(r.id for r in runs if r.mode == "flat")
    hier_id = next(r.id for r in runs if r.mode == "hierarchical")
    assert at.selectbox(key="compare_left").value == flat_id
    assert at.selectbox(key="compare_right").value == hier_id
    assert (at.query_params["left"], at.query_params["right"]) == (flat_id, hier_id)  # the pair is in the URL
    assert "**Left (flat)**" in texts(at.markdown) and "**Right (hierarchical)**" in texts(at.markdown)

    until(at, judged, timeout=90)
    no_exception(at)
    for run_id in (flat_id, hier_id):
        snap = runner.snapshot(run_id)
        assert snap.status == "completed" and snap.question == QUESTION
        assert snap.config["max_iterations"] == 12 and snap.config["auto_approve"] is True
    table = metrics_table(at)
    assert list(table.index) == METRICS
    assert list(table.loc["Mode"]) == ["flat", "hierarchical"]
    body = texts(at.markdown)
    assert "#### Left (flat)" in body and "#### Right (hierarchical)" in body
    flat_side = body.split("#### Left (flat)", 1)[1].split("#### Right (hierarchical)", 1)[0]
    assert "The research answers the question" in body and "SQLite is an embedded database" in flat_side
    # the scripted judge prefers the longer report (the hierarchical one) in both orders
    assert "More complete: **Right (hierarchical)**" in body
    assert "The judgement took 2 LLM calls" in texts(at.caption)


def test_searxng_without_a_url_is_refused_before_any_run_starts(env: dict, monkeypatch) -> None:
    monkeypatch.delenv("ARBOR_SEARXNG_URL", raising=False)
    at = open_page(app(), "app_pages/compare.py")
    at.text_area(key="cmp_question").input(QUESTION)
    at.multiselect(key="cmp_backends").set_value(["library", "searxng"])
    button(at, "Research both ways").click().run()
    no_exception(at)
    # the New research form's own message, from the one check both forms use
    assert "SearXNG needs its URL: set it on the Settings page, or choose another backend." in texts(at.error)
    assert runner_for(env).runs() == []


def test_one_request_at_a_time_runs_flat_first_then_hierarchical(env: dict) -> None:
    at = open_page(app(), "app_pages/compare.py")
    at.text_area(key="cmp_question").input(QUESTION)
    at.checkbox(key="cmp_parallel").uncheck()
    button(at, "Research both ways").click().run()
    until(at, judged, timeout=90)
    no_exception(at)
    tasks = [t for t, _ in env["scripted"].calls]
    # the flat run ends with its coverage check before the hierarchical run decomposes
    assert tasks.index("assess_coverage") < tasks.index("decompose")
    assert list(metrics_table(at).loc["Status"]) == ["Completed", "Completed"]


# ---- history -------------------------------------------------------------------------------------


def test_history_opens_compare_with_the_two_picked_runs(env: dict) -> None:
    runner = runner_for(env)
    flat = runner.start(QUESTION, run_config(auto_approve=True, mode="flat"))
    hier = runner.start(QUESTION, run_config(auto_approve=True))
    runner.start("What is write-ahead logging in SQLite?", run_config())  # waits at its review: not offered
    at = open_page(app(), "app_pages/history.py")
    no_exception(at)
    picker = at.multiselect(key="history_compare_pick")
    assert len(picker.options) == 2  # only the two finished runs, not the one waiting at its review
    assert {option.split(" · ")[1] for option in picker.options} == {"flat", "hierarchical"}
    assert button(at, "Compare").disabled
    picker.set_value([hier.run_id, flat.run_id]).run()
    button(at, "Compare").click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Compare"]
    assert at.selectbox(key="compare_left").value == hier.run_id
    assert at.selectbox(key="compare_right").value == flat.run_id
    assert list(metrics_table(at).loc["Mode"]) == ["hierarchical", "flat"]


def test_rerunning_a_branch_from_history_creates_a_linked_run_that_reuses_the_others(env: dict) -> None:
    runner = runner_for(env)
    original = runner.start(QUESTION, run_config(auto_approve=True, adaptive_plan=False))
    old = runner.result(original.run_id)
    at = open_page(app(), "app_pages/history.py")
    no_exception(at)
    assert [e.label for e in at.expander] == ["Re-run one branch"]
    branch = at.selectbox(key=f"history_rerun_branch_{original.run_id}")
    assert [option.split(" · ")[0] for option in branch.options] == ["1", "2", "3"]
    branch.set_value("sq_002").run()
    at.text_area(key=f"history_rerun_text_{original.run_id}_sq_002").input("How many writers can each handle?")
    at.number_input(key=f"history_rerun_priority_{original.run_id}_sq_002").set_value(0.9)
    mark = len(env["scripted"].calls)
    button(at, "Re-run this branch").click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Run"]
    new_id = at.session_state["current_run_id"]
    assert new_id != original.run_id
    assert wait_for(runner, new_id, ("completed", "failed")).status == "completed"

    assert runner.store.get(new_id).parent_run_id == original.run_id
    new = runner.result(new_id)
    old_by_id = {sq.id: sq for sq in old.sub_questions}
    new_by_id = {sq.id: sq for sq in new.sub_questions}
    for bid in ("sq_001", "sq_003"):  # reused as they were
        assert [f.id for f in new_by_id[bid].findings] == [f.id for f in old_by_id[bid].findings]
    assert new_by_id["sq_002"].question_text == "How many writers can each handle?"
    assert new_by_id["sq_002"].priority == 0.9 and new_by_id["sq_002"].findings
    researched = [b["messages"][-1]["content"] for t, b in env["scripted"].calls[mark:] if t == "plan_queries"]
    assert researched and all("How many writers can each handle?" in text for text in researched)

    # History links the re-run to its original, both ways
    at = open_page(at, "app_pages/history.py")
    table = at.dataframe[0].value.set_index("id")
    assert table.loc[new_id, "re-run of"] == original.run_id
    assert table.loc[original.run_id, "re-run of"] == ""
    at.selectbox(key="history_selected").set_value(new_id).run()
    lineage = [c for c in texts(at.caption).split("\n") if "Re-run of one branch of the run of" in c]
    assert lineage and original.run_id in lineage[0]
    links = {link.label: link for link in at.get("page_link")}
    assert "Open the original run" in links
    at.selectbox(key="history_selected").set_value(original.run_id).run()
    assert f"Branch re-runs of this run: `{new_id}`" in texts(at.caption)
    at.selectbox(key="history_selected").set_value(new_id).run()
    button(at, "Compare with the original").click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Compare"]
    assert at.selectbox(key="compare_left").value == original.run_id
    assert at.selectbox(key="compare_right").value == new_id
