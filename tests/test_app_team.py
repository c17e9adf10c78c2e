"""The Run page of a team installation (ARBOR_DATABASE_URL): runs wait in the queue and workers drive them.

AppTest against a real PostgreSQL database; no worker runs here, so what the page shows comes
from the database alone, as it does for a run a worker on another machine drives.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from research_core.configuration import LLMSettings, build_run_config
from research_core.runs.runner import Runner
from tests.test_app_pages import APP, QUESTION, button, no_exception, texts

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]


@pytest.fixture
def team(env: dict, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Runner:
    """The workbench's environment on a PostgreSQL database; a runner on it, as another instance would have."""
    monkeypatch.setenv("ARBOR_DATABASE_URL", postgres_url)
    llm = LLMSettings(provider="openai", base_url=env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0)
    return Runner(postgres_url, llm_settings=llm, api_key="sk-test")


def run_page(run_id: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["run"] = run_id
    at.run()
    return at.switch_page("app_pages/run.py").run()


def test_a_queued_run_says_it_waits_for_a_worker_and_stop_reaches_the_worker_through_the_database(team, env):
    config = build_run_config("general", QUESTION, search_backends=["library"], auto_approve=True)
    run_id = team.enqueue(QUESTION, config)
    at = run_page(run_id)
    no_exception(at)
    assert "Waiting for a worker to take the run." in texts(at.caption)
    button(at, "Stop").click().run()
    no_exception(at)
    assert team.store.stop_requested(run_id)  # the worker that takes it stops it before its first step
    assert env["scripted"].recorded_calls() == []  # the page drove nothing itself


def test_history_lists_a_queued_run_as_queued(team):
    config = build_run_config("general", QUESTION, search_backends=["library"], auto_approve=True)
    run_id = team.enqueue(QUESTION, config)
    at = AppTest.from_file(APP, default_timeout=60).run().switch_page("app_pages/history.py").run()
    no_exception(at)
    frame = at.dataframe[0].value
    assert frame.loc[frame["id"] == run_id, "status"].tolist() == ["Queued for a worker"]
