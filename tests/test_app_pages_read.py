"""The workbench shows page reading: pages read per branch on Run, page or snippet per source on Report,
and the reading settings (SearXNG URL, read pages, private addresses) on Settings reach new runs.

Same set-up as tests/test_app_pages.py (tmp database, scripted LLM server); the run reads the local
web on 127.0.0.1 through SearXNG-format search.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from research_core.configuration import LLMSettings
from research_core.runs.runner import Runner
from research_core.search.searxng import SearxngSearch
from tests.fakes.local_web import LocalWeb, serve_local_web
from tests.test_app_pages import QUESTION, app, button, no_exception, open_page, run_config, runner_for, texts
from tests.test_app_report_run import metric, stored_config


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web() as served:
        yield served


def read_run(env: dict, web: LocalWeb) -> str:
    """A finished run on the app's database whose sources are pages of the local web."""
    llm = LLMSettings(provider="openai", base_url=env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0)
    runner = Runner(env["db"], llm_settings=llm, api_key="sk-test", backends=[SearxngSearch(web.base_url)])
    config = run_config(auto_approve=True, search_backends=["searxng"], fetch_private_addresses=True, parallel=1)
    snap = runner.start(QUESTION, config)
    assert snap.status == "completed", snap.error
    return snap.run_id


def test_run_page_shows_pages_read_per_branch(env: dict, web: LocalWeb) -> None:
    run_id = read_run(env, web)
    at = open_page(app(run_id), "app_pages/run.py")
    no_exception(at)
    read, tried = (int(n) for n in metric(at, "Pages read").split(" / "))
    assert 0 < read <= tried
    captions = texts(at.caption)
    assert captions.count("Pages read: ") == 3  # one line per branch
    assert "page read" in texts(at.markdown)  # findings name how their sources were used


def test_report_says_page_or_snippet_for_each_source(env: dict, web: LocalWeb) -> None:
    run_id = read_run(env, web)
    at = open_page(app(run_id), "app_pages/report.py")
    no_exception(at)
    frame = next(d.value for d in at.dataframe if "read" in d.value.columns)
    assert set(frame["read"]) <= {"page read", "snippet only"} and "page read" in set(frame["read"])
    assert "web sources were read as pages" in texts(at.caption)


def test_reading_settings_are_saved_and_reach_new_runs(env: dict) -> None:
    at = open_page(app(), "app_pages/settings.py")
    no_exception(at)
    assert at.toggle(key="set_read_pages").value is True
    assert at.toggle(key="set_fetch_private").value is False
    at.text_input(key="set_searxng_url").input("http://127.0.0.1:8888/")
    at.toggle(key="set_read_pages").set_value(False)
    at.toggle(key="set_fetch_private").set_value(True).run()
    button(at, "Save settings").click().run()
    no_exception(at)
    saved = json.loads((env["db"].parent / "settings.json").read_text())
    assert (saved["searxng_url"], saved["read_pages"], saved["fetch_private_addresses"]) == (
        "http://127.0.0.1:8888",
        False,
        True,
    )

    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    config = stored_config(env["db"])
    assert (config["searxng_url"], config["read_pages"], config["fetch_private_addresses"]) == (
        "http://127.0.0.1:8888",
        False,
        True,
    )


def test_settings_save_a_searxng_url_without_its_credentials(env: dict) -> None:
    at = open_page(app(), "app_pages/settings.py")
    at.text_input(key="set_searxng_url").input("http://user:pw@searx.example/?token=SECRET-T0KEN").run()
    button(at, "Save settings").click().run()
    no_exception(at)
    assert "credentials were not saved" in texts(at.success)
    saved = (env["db"].parent / "settings.json").read_text()
    assert json.loads(saved)["searxng_url"] == "http://searx.example"
    assert "SECRET-T0KEN" not in saved and "user:pw" not in saved


def test_new_research_asks_for_the_searxng_url_first(env: dict) -> None:
    at = app()
    at.text_area(key="nr_question").input(QUESTION).run()
    at.multiselect(key="nr_backends").set_value(["searxng"]).run()
    button(at, "Propose plan").click().run()
    no_exception(at)
    assert "SearXNG needs its URL" in texts(at.error)
    assert Runner(env["db"]).runs() == []


def test_reading_settings_reach_the_runs_compare_starts(env: dict) -> None:
    at = open_page(app(), "app_pages/settings.py")
    at.text_input(key="set_searxng_url").input("http://127.0.0.1:8888/")
    at.toggle(key="set_read_pages").set_value(False)
    at.toggle(key="set_fetch_private").set_value(True).run()
    button(at, "Save settings").click().run()
    no_exception(at)

    at = open_page(app(), "app_pages/compare.py")
    at.text_area(key="cmp_question").input(QUESTION)
    button(at, "Research both ways").click().run()
    no_exception(at)
    runner = runner_for(env)
    runs = runner.runs()
    assert sorted(r.mode for r in runs) == ["flat", "hierarchical"]
    for run in runs:
        config = runner.snapshot(run.id).config
        assert (config["searxng_url"], config["read_pages"], config["fetch_private_addresses"]) == (
            "http://127.0.0.1:8888",
            False,
            True,
        )
