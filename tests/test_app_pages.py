"""The Streamlit pages under AppTest, against the scripted LLM server and the real document library.

Every test gets its own SQLite file (ARBOR_DB) with a few library documents, an in-process
scripted OpenAI-compatible server (OPENAI_BASE_URL) and ARBOR_SEARCH=library, so nothing
touches the network. Runs are created either through the app (New research) or through a
`Runner` on the same database, the way the CLI would.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research_core.configuration import LLMSettings, build_run_config
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot
from research_core.search.library import DocumentLibrary

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
QUESTION = "Compare SQLite and PostgreSQL for small web apps"
SECRET = "sk-test-session-key-0123456789abcdef"


def runner_for(env: dict, base_url: str | None = None) -> Runner:
    """A runner on the test database, searching the real library (like the CLI)."""
    llm = LLMSettings(
        provider="openai", base_url=base_url or env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0
    )
    return Runner(env["db"], llm_settings=llm, api_key="sk-test")


def run_config(**overrides):
    values = {"search_backends": ["library"], "parallel": 2, "mode": "hierarchical"}
    values.update(overrides)
    return build_run_config("general", QUESTION, **values)


def wait_for(runner: Runner, run_id: str, statuses: tuple[str, ...], timeout: float = 60) -> RunSnapshot:
    """Poll the run until its status is one of `statuses` and nothing drives it."""
    deadline = time.time() + timeout
    snap = runner.snapshot(run_id)
    while time.time() < deadline:
        snap = runner.snapshot(run_id)
        if snap.status in statuses:
            return snap
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} stayed {snap.status}, expected one of {statuses}")


def app(run_id: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if run_id:
        at.query_params["run"] = run_id
    return at.run()


def open_page(at: AppTest, page: str) -> AppTest:
    return at.switch_page(page).run()


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    return matches[0]


def until(at: AppTest, predicate, timeout: float = 60) -> AppTest:
    """Rerun the app (the polling fragments run inline) until `predicate(at)` holds."""
    deadline = time.time() + timeout
    while not predicate(at):
        if time.time() > deadline:
            raise AssertionError(f"timed out; titles {[t.value for t in at.title]}, errors {texts(at.error)}")
        time.sleep(0.3)
        at.run()
    return at


# ---- every page ------------------------------------------------------------------------------


PAGES = [
    ("app_pages/new_research.py", "New research"),
    ("app_pages/review_plan.py", "Review plan"),
    ("app_pages/run.py", "Run"),
    ("app_pages/report.py", "Report"),
    ("app_pages/history.py", "History"),
    ("app_pages/compare.py", "Compare"),
    ("app_pages/library.py", "Library"),
    ("app_pages/settings.py", "Settings"),
]


@pytest.mark.parametrize(("page", "title"), PAGES)
def test_every_page_renders_on_an_empty_database(env: dict, page: str, title: str) -> None:
    at = app()
    no_exception(at)
    at = open_page(at, page)
    no_exception(at)
    assert [t.value for t in at.title] == [title]
    assert not at.error or page == "app_pages/settings.py"


def test_pages_without_a_run_say_what_to_do(env: dict) -> None:
    at = app()
    assert "Start one on New research" in texts(open_page(at, "app_pages/run.py").info)
    assert "There is no plan to review yet" in texts(open_page(at, "app_pages/review_plan.py").info)
    assert "Open a finished run from History" in texts(open_page(at, "app_pages/report.py").info)
    assert "No runs yet." in texts(open_page(at, "app_pages/history.py").info)
    assert "at least two finished runs" in texts(open_page(at, "app_pages/compare.py").info)


def test_sidebar_shows_the_llm_and_search_backends(env: dict) -> None:
    at = app()
    sidebar = texts(at.sidebar.markdown) + texts(at.sidebar.caption)
    assert "gpt-4o-mini" in sidebar
    assert env["url"] in sidebar
    assert "Document library" in sidebar


# ---- new research ----------------------------------------------------------------------------


def test_new_research_has_its_widgets(env: dict) -> None:
    at = app()
    assert at.text_area(key="nr_question").label == "Question"
    assert at.selectbox(key="nr_template").options[0].startswith("auto")
    assert [o for o in at.radio(key="nr_mode").options] == [
        "Auto (classify the question)",
        "Flat (one research loop)",
        "Hierarchical (tree of sub-questions)",
        "Hypothesis (propose and test hypotheses)",
    ]
    assert at.radio(key="nr_execution").value == "auto"
    assert at.number_input(key="nr_max_iterations").value == 20
    assert at.multiselect(key="nr_backends").value == ["library"]
    assert "LLM: **gpt-4o-mini**" in texts(at.caption)
    assert button(at, "Propose plan")


def test_new_research_with_an_empty_question_shows_the_error(env: dict) -> None:
    at = app()
    at.text_area(key="nr_question").input("   ").run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    assert "The question is empty" in texts(at.error)
    assert Runner(env["db"]).runs() == []


def test_an_example_fills_the_question(env: dict) -> None:
    at = app()
    example = next(b for b in at.button if b.key == "nr_example_0")
    example.click().run()
    assert at.text_area(key="nr_question").value == example.label


def test_propose_plan_starts_a_run_and_opens_the_review(env: dict) -> None:
    at = app()
    at.text_area(key="nr_question").input(QUESTION)
    at.radio(key="nr_execution").set_value("step").run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    until(at, lambda a: [t.value for t in a.title] == ["Review plan"])
    runs = Runner(env["db"]).runs()
    assert len(runs) == 1 and runs[0].status == "awaiting_review"
    config = Runner(env["db"]).store.get(runs[0].id).config
    assert config["step_mode"] is True and config["auto_approve"] is False
    assert config["search_backends"] == ["library"]
    assert at.session_state["current_run_id"] == runs[0].id


# ---- review plan -------------------------------------------------------------------------------


def review_at(env: dict) -> tuple[AppTest, Runner, str]:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config())
    assert snap.status == "awaiting_review", snap.error
    at = open_page(app(snap.run_id), "app_pages/review_plan.py")
    no_exception(at)
    return at, runner, snap.run_id


def edit_plan(at: AppTest, run_id: str, edited_rows: dict, added_rows: list | None = None) -> AppTest:
    at.session_state[f"rp_editor_{run_id}_0"] = {
        "edited_rows": edited_rows,
        "added_rows": added_rows or [],
        "deleted_rows": [],
    }
    return at.run()


def approve(at: AppTest):
    return next(b for b in at.button if b.label == "Approve and research")


def test_review_shows_the_plan_budget_and_enabled_approve(env: dict) -> None:
    at, _runner, _run_id = review_at(env)
    table = at.dataframe[0].value
    assert list(table.columns) == ["order", "id", "question_text", "priority", "rationale", "parent_id"]
    assert list(table["id"]) == ["sq_001", "sq_002", "sq_003"]
    assert not approve(at).disabled
    assert not at.error
    labels = [m.label for m in at.metric]
    assert "Research iterations" in labels and "Estimated cost" in labels
    assert "multi-faceted" in texts(at.caption)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({1: {"priority": 1.5}}, "Sub-question 2: priority 1.5 is outside 0-1."),
        ({0: {"question_text": "  "}}, "Sub-question 1: the question text is empty."),
        ({2: {"parent_id": "sq_404"}}, "sq_003: its parent 'sq_404' is not in the plan."),
        ({1: {"id": "sq_001"}}, "the id 'sq_001' is used twice"),
    ],
)
def test_an_invalid_edit_disables_approve_and_names_the_row(env: dict, edit: dict, message: str) -> None:
    at, _runner, run_id = review_at(env)
    at = edit_plan(at, run_id, edit)
    no_exception(at)
    assert message in texts(at.error)
    assert approve(at).disabled
    assert "Fix the plan to see the tree and the budget." in texts(at.caption)


def test_a_new_row_without_priority_is_refused_until_filled(env: dict) -> None:
    at, _runner, run_id = review_at(env)
    at = edit_plan(at, run_id, {}, [{"question_text": "What do hosting costs look like?", "priority": None}])
    assert "Sub-question 4: the priority is empty" in texts(at.error)
    assert approve(at).disabled
    at = edit_plan(at, run_id, {}, [{"question_text": "What do hosting costs look like?", "priority": 0.4}])
    assert not at.error and not approve(at).disabled


def test_approving_an_edited_plan_researches_it(env: dict) -> None:
    at, runner, run_id = review_at(env)
    edited = "How do SQLite and PostgreSQL handle concurrent writes?"
    at = edit_plan(
        at,
        run_id,
        {1: {"question_text": edited, "priority": 0.95}, 2: {"parent_id": "sq_001", "order": 1.5}},
        [{"question_text": "What does each cost to host?", "priority": 0.3, "order": 9}],
    )
    assert not at.error, texts(at.error)
    tree = texts(at.markdown)
    assert edited in tree and "**1.1**" in tree  # sq_003 nested under sq_001
    approve(at).click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Run"]
    snap = wait_for(runner, run_id, ("completed", "completed_with_fallback", "failed"))
    assert snap.status == "completed", snap.error
    result = runner.result(run_id)
    by_id = {sq.id: sq for sq in result.sub_questions}
    assert by_id["sq_002"].question_text == edited and by_id["sq_002"].priority == 0.95
    assert by_id["sq_003"].parent_id == "sq_001"
    assert any(sq.question_text == "What does each cost to host?" for sq in result.sub_questions)
    assert {s.backend for s in result.sources} == {"library"}


def test_plan_edits_survive_a_visit_to_another_page(env: dict) -> None:
    at, runner, run_id = review_at(env)
    edited = "Which one handles many concurrent writers better?"
    at = edit_plan(at, run_id, {1: {"question_text": edited, "priority": 0.9}})
    assert edited in texts(at.markdown)  # the tree preview shows the edit
    at = open_page(at, "app_pages/library.py")
    no_exception(at)
    at.query_params["run"] = run_id
    at = open_page(at, "app_pages/review_plan.py")
    no_exception(at)
    table = at.dataframe[0].value
    row = table[table["id"] == "sq_002"].iloc[0]
    assert (row.question_text, row.priority) == (edited, 0.9)
    approve(at).click().run()
    snap = wait_for(runner, run_id, ("completed", "completed_with_fallback", "failed"))
    assert {sq.id: sq for sq in runner.result(run_id).sub_questions}["sq_002"].question_text == edited, snap


def test_split_adds_children_under_the_chosen_sub_question(env: dict) -> None:
    at, _runner, run_id = review_at(env)
    at.selectbox(key=f"rp_split_target_{run_id}").set_value("sq_002").run()
    button(at, "Split").click().run()
    no_exception(at)
    table = at.dataframe[0].value
    children = table[table["parent_id"] == "sq_002"]
    assert list(children["id"]) == ["sq_002.1", "sq_002.2", "sq_002.3"]
    assert list(table["id"]).index("sq_002.1") == list(table["id"]).index("sq_002") + 1
    assert not approve(at).disabled


def test_cancel_at_review_cancels_the_run(env: dict) -> None:
    at, runner, run_id = review_at(env)
    button(at, "Yes, cancel the run").click().run()
    no_exception(at)
    assert wait_for(runner, run_id, ("cancelled",)).status == "cancelled"


# ---- run ------------------------------------------------------------------------------------------------


def test_step_gate_edit_skip_and_continue(env: dict) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1))
    assert snap.status == "awaiting_step", snap.error
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "Paused after a branch" in texts(at.subheader)
    pending = snap.pending["pending"]
    assert [p["id"] for p in pending] == ["sq_002", "sq_003"]
    gate_key = "_".join(c["id"] for c in snap.pending["completed"])
    at.session_state[f"step_editor_{snap.run_id}_{gate_key}"] = {
        "edited_rows": {0: {"question_text": "Which one handles concurrent writes better?"}, 1: {"skip": True}},
        "added_rows": [],
        "deleted_rows": [],
    }
    at.run()
    button(at, "Continue").click().run()
    no_exception(at)
    after = wait_for(runner, snap.run_id, ("awaiting_step", "completed"))
    by_id = {b.id: b for b in after.branches}
    assert by_id["sq_002"].question_text == "Which one handles concurrent writes better?"
    assert by_id["sq_003"].status == "skipped"


def test_stop_early_writes_the_report_from_what_is_there(env: dict) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1))
    at = open_page(app(snap.run_id), "app_pages/run.py")
    button(at, "Stop early and write the report").click().run()
    done = wait_for(runner, snap.run_id, ("completed", "completed_with_fallback"))
    assert any("stopped early" in w for w in done.warnings)
    at = until(at, lambda a: "Read the report" in [link.label for link in a.get("page_link")])
    no_exception(at)
    assert "The run was stopped early by the user" in texts(at.warning)


def test_run_page_shows_tree_branches_costs_and_log(env: dict) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    assert snap.status == "completed", snap.error
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "The research is done." in texts(at.success)
    assert len(at.get("plotly_chart")) >= 3  # tree, iterations, cost per branch, cost per step
    labels = [e.label for e in at.expander]
    assert any(QUESTION[:20] in label for label in labels)
    metrics = {m.label for m in at.metric}
    assert metrics >= {"Branches done", "Iterations", "Findings", "Sources", "Tokens", "Cost (USD)"}
    assert [t.label for t in at.tabs] == ["Branches", "Budget and cost", "Log"]


def test_a_failed_run_shows_the_error_and_resumes(env: dict) -> None:
    dead = runner_for(env, base_url="http://127.0.0.1:9/v1")
    snap = dead.start(QUESTION, run_config(auto_approve=True))
    assert snap.status == "failed"
    at = open_page(app(snap.run_id), "app_pages/run.py")
    no_exception(at)
    assert "The run failed" in texts(at.error)
    # the run's own endpoint is dead; the Settings page points at a working one: both are offered
    assert "127.0.0.1:9/v1" in texts(at.caption) and env["url"] in texts(at.caption)
    button(at, "Resume with the current settings").click().run()
    done = wait_for(runner_for(env), snap.run_id, ("completed", "completed_with_fallback", "failed"))
    assert done.status == "completed", done.error


def test_an_interrupted_run_resumes_with_its_own_model(env: dict) -> None:
    llm = LLMSettings(provider="openai", base_url=env["url"], model="run-own-model", timeout_s=10, max_retries=0)
    own = Runner(env["db"], llm_settings=llm, api_key="sk-test")
    run_id = own.create_run(QUESTION, run_config(auto_approve=True))
    own.store.update(run_id, status="running", owner_pid=2**22 + 12345)  # a server that is gone
    at = open_page(app(run_id), "app_pages/run.py")
    no_exception(at)
    assert "run-own-model" in texts(at.caption)
    mark = len(env["scripted"].calls)
    button(at, "Resume with its own model").click().run()
    no_exception(at)
    assert wait_for(own, run_id, ("completed", "failed")).status == "completed"
    models = {body["model"] for _, body in env["scripted"].calls[mark:]}
    assert models == {"run-own-model"}


def test_warnings_are_shown_once(env: dict) -> None:
    from tests.fakes.search import FailingSearch

    llm = LLMSettings(provider="openai", base_url=env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0)
    runner = Runner(
        env["db"], llm_settings=llm, api_key="sk-test", backends=[FailingSearch(), DocumentLibrary(env["db"])]
    )
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    assert snap.warnings, "the engine should warn that web search is unreachable"
    at = open_page(app(snap.run_id), "app_pages/run.py")
    shown = [w.value for w in at.warning]
    assert len(shown) == len(set(shown))
    assert any("unreachable" in w for w in shown)


# ---- report, history, compare ----------------------------------------------------------------------------


def test_report_page_shows_answer_branches_sources_and_downloads(env: dict) -> None:
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(auto_approve=True))
    at = open_page(app(snap.run_id), "app_pages/report.py")
    no_exception(at)
    body = texts(at.markdown)
    assert "The research answers the question" in body
    assert "#### Conclusion" in body  # the model's headings sit below the page's own
    assert len([e for e in at.expander if not e.label.startswith("What the sources say")]) == 3  # the branches
    assert [d.label for d in at.get("download_button")] == ["Markdown", "HTML", "JSON", "PDF", "Word"]
    sources = at.dataframe[0].value
    assert list(sources.columns) == ["#", "title", "link", "location", "backend", "read", "branch"]
    assert set(sources["backend"]) == {"library"} and set(sources["read"]) == {"document"}
    assert sources["link"].isna().all()  # library:// locations are shown, never linked
    assert {m.label for m in at.metric} >= {"Time", "Iterations", "Findings", "Sources", "Tokens", "Cost (USD)"}


def test_history_lists_runs_opens_and_deletes(env: dict) -> None:
    runner = runner_for(env)
    done = runner.start(QUESTION, run_config(auto_approve=True))
    waiting = runner.start("What is write-ahead logging in SQLite?", run_config())
    at = open_page(app(), "app_pages/history.py")
    no_exception(at)
    table = at.dataframe[0].value
    assert list(table["id"]) == [waiting.run_id, done.run_id]  # newest first
    assert list(table["status"]) == ["Plan ready for review", "Completed"]
    assert table["cost"].iloc[1] > 0
    at.selectbox(key="history_selected").set_value(done.run_id).run()
    button(at, "Open report").click().run()
    assert [t.value for t in at.title] == ["Report"]
    at = open_page(at, "app_pages/history.py")
    at.selectbox(key="history_selected").set_value(waiting.run_id).run()
    button(at, "Delete…").click().run()
    assert "cannot be undone" in texts(at.warning)
    button(at, "Keep it").click().run()
    assert len(runner.runs()) == 2
    button(at, "Delete…").click().run()
    button(at, "Delete permanently").click().run()
    no_exception(at)
    assert [r.id for r in runner.runs()] == [done.run_id]
    assert "The run was deleted." in texts(at.success)


def test_history_resumes_an_interrupted_run(env: dict) -> None:
    runner = runner_for(env)
    run_id = runner.create_run(QUESTION, run_config(auto_approve=True))
    runner.store.update(run_id, status="running", owner_pid=2**22 + 12345)  # a server that is gone
    at = open_page(app(), "app_pages/history.py")
    assert "Interrupted" in list(at.dataframe[0].value["status"])
    button(at, "Resume").click().run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Run"]
    assert wait_for(runner, run_id, ("completed", "failed")).status == "completed"


def test_compare_shows_two_finished_runs_side_by_side(env: dict) -> None:
    runner = runner_for(env)
    runner.start(QUESTION, run_config(auto_approve=True))
    runner.start(QUESTION, run_config(auto_approve=True, mode="flat"))
    at = open_page(app(), "app_pages/compare.py")
    no_exception(at)
    assert len(at.selectbox) == 2
    assert {at.selectbox(key="compare_left").value, at.selectbox(key="compare_right").value} == {
        r.id for r in runner.runs()
    }
    assert texts(at.markdown).count("The research answers the question") == 1  # hierarchical meta-synthesis


# ---- library -----------------------------------------------------------------------------------------------


def test_library_add_search_and_remove(env: dict) -> None:
    at = open_page(app(), "app_pages/library.py")
    no_exception(at)
    assert len(at.dataframe[0].value) == 3
    uploader = at.get("file_uploader")[0]
    assert set(uploader.allowed_type) == {
        *(".md", ".markdown", ".txt", ".html", ".htm", ".pdf"),
        *(".docx", ".pptx", ".xlsx", ".csv"),
    }
    uploader.set_value(
        [
            ("wal.md", b"# Write-ahead logging\n\nThe WAL journal lets readers run during a write.", "text/markdown"),
            ("empty.txt", b"", "text/plain"),
            ("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00", "text/plain"),
            ("report.html", b"PK\x03\x04 zipped", "text/html"),
        ]
    )
    at.run()
    button(at, "Add to library").click().run()
    no_exception(at)
    assert "Added wal.md" in texts(at.success)
    errors = texts(at.error)
    assert "'empty.txt' is empty" in errors
    assert "'photo.txt' looks like a PNG image" in errors
    assert "'report.html' looks like a ZIP archive" in errors
    documents = at.dataframe[0].value
    assert "Write-ahead logging" in list(documents["title"])
    at.text_input(key="lib_query").input("journal readers").run()
    assert "Write-ahead logging" in texts(at.markdown)
    doc_id = documents[documents["title"] == "Write-ahead logging"]["id"].iloc[0]
    at.selectbox(key="lib_remove_pick").set_value(doc_id).run()
    button(at, "Remove").click().run()
    no_exception(at)
    assert DocumentLibrary(env["db"]).count() == 3


# ---- settings ----------------------------------------------------------------------------------------------


def test_settings_show_reachability(env: dict) -> None:
    at = open_page(app(), "app_pages/settings.py")
    no_exception(at)
    successes = texts(at.success)
    assert f"LLM at {env['url']}" in successes and "Reachable; models: scripted" in successes
    assert "Document library" in successes and "3 documents" in successes


def test_settings_never_write_the_api_key(env: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    at = open_page(app(), "app_pages/settings.py")
    at.radio(key="set_endpoint").set_value("compatible").run()
    at.text_input(key="set_base_url").input(env["url"])
    at.text_input(key="set_model").input("scripted-model")
    at.text_input(key="set_api_key_input").input(SECRET).run()
    button(at, "Use for this session").click().run()
    assert at.session_state["session_api_key"] == SECRET
    assert at.text_input(key="set_api_key_input").value == ""
    assert SECRET not in texts(at.markdown)
    assert "sk-…cdef" in texts(at.markdown)
    button(at, "Save settings").click().run()
    no_exception(at)
    settings_file = env["db"].parent / "settings.json"
    saved = json.loads(settings_file.read_text())
    assert saved["model"] == "scripted-model" and saved["base_url"] == env["url"]
    # a whole run with the session key: the key reaches the LLM but never the disk
    at = open_page(at, "app_pages/new_research.py")
    at.text_area(key="nr_question").input(QUESTION).run()
    button(at, "Propose plan").click().run()
    until(at, lambda a: [t.value for t in a.title] == ["Review plan"])
    run_id = at.session_state["current_run_id"]
    assert env["scripted"].count("decompose") >= 1
    at = open_page(at, "app_pages/review_plan.py")  # AppTest keeps its own page across st.switch_page
    approve(at).click().run()
    wait_for(runner_for(env), run_id, ("completed",))
    for path in env["db"].parent.iterdir():
        assert SECRET.encode() not in path.read_bytes(), f"the API key leaked into {path.name}"


def test_settings_refuse_an_invalid_base_url(env: dict) -> None:
    at = open_page(app(), "app_pages/settings.py")
    at.radio(key="set_endpoint").set_value("compatible").run()
    at.text_input(key="set_base_url").input("localhost:11434").run()
    button(at, "Save settings").click().run()
    assert "must start with http:// or https://" in texts(at.error)
    assert not (env["db"].parent / "settings.json").exists()


def test_a_slow_model_start_shows_its_progress_while_the_plan_is_proposed(env: dict) -> None:
    from ui.services import progress_feed

    env["scripted"].latency_by_task["decompose"] = 2.0  # the comparison template skips classify
    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    button(at, "Propose plan").click().run()
    progress_feed().append("Assembling the model file (1.1 GB): part 3 of 22")
    at.run()
    no_exception(at)
    assert [s.label for s in at.status] == ["Starting the embedded model…"]
    assert "part 3 of 22" in texts(at.caption)
    until(at, lambda a: [t.value for t in a.title] == ["Review plan"])


def test_revision_and_drill_down_gates_are_answered_from_the_run_page(env: dict) -> None:
    scripted = env["scripted"]
    scripted.script["evaluate_depth"] = [
        json.dumps(
            {
                "depth": "superficial",
                "reasoning": "only generic facts",
                "drill_into": ["How does SQLite's write-ahead log behave under load?"],
            }
        )
    ]
    scripted.script["revise_plan"] = [
        json.dumps(
            {
                "add": [{"question": "What do backups and restores look like for each?", "priority": 0.5}],
                "drop": [],
                "reprioritize": {},
                "reasoning": "backups matter for small teams",
            }
        )
    ]
    runner = runner_for(env)
    snap = runner.start(QUESTION, run_config(step_mode=True, auto_approve=True, parallel=1, max_iterations=30))
    seen: list[str] = []
    answers = {"step": "Continue", "revision": "Accept", "drill_down": "Research these"}
    for _ in range(15):
        if snap.status != "awaiting_step":
            break
        kind = snap.pending["kind"]
        seen.append(kind)
        at = open_page(app(snap.run_id), "app_pages/run.py")
        no_exception(at)
        heading = {
            "step": "Paused after a branch",
            "revision": "Proposed change to the plan",
            "drill_down": "Go deeper?",
        }
        assert heading[kind] in texts(at.subheader)
        before = json.dumps(snap.pending, sort_keys=True)
        button(at, answers[kind]).click().run()
        deadline = time.time() + 30
        while time.time() < deadline:
            snap = runner.snapshot(snap.run_id)
            settled = snap.status in ("completed", "completed_with_fallback", "failed") or (
                snap.status == "awaiting_step" and json.dumps(snap.pending, sort_keys=True) != before
            )
            if settled:
                break
            time.sleep(0.1)
    assert snap.status == "completed", (snap.status, snap.error, seen)
    assert {"step", "revision", "drill_down"} <= set(seen)
    questions = [b.question_text for b in snap.branches]
    assert "What do backups and restores look like for each (SQLite, PostgreSQL)?" in questions
    assert "How does SQLite's write-ahead log behave under load?" in questions


def test_two_sessions_keep_their_own_current_run(env: dict) -> None:
    first = app()
    first.text_area(key="nr_question").input(QUESTION).run()
    button(first, "Propose plan").click().run()
    until(first, lambda a: [t.value for t in a.title] == ["Review plan"])
    run_id = first.session_state["current_run_id"]
    second = app()
    assert "current_run_id" not in second.session_state or second.session_state["current_run_id"] is None
    assert "Current run" not in texts(second.sidebar.markdown)
    assert "There is no plan to review yet" in texts(open_page(second, "app_pages/review_plan.py").info)
    history = open_page(second, "app_pages/history.py")
    assert list(history.dataframe[0].value["id"]) == [run_id]  # History shows every run
    reopened = app(run_id)  # a new tab on the run's URL finds it again
    assert "Current run" in texts(reopened.sidebar.markdown)
