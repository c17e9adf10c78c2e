"""Two people in two browsers: a private run stays private until its owner shares it, then opens read-only and forks.

Debian's Chromium drives `streamlit run app.py` on 127.0.0.1 through Playwright, as in
tests/test_browser_journey.py, with two browser contexts (two people, two sessions) signed in as
Alice and Bob. Alice's finished run is made beforehand through the run API with the scripted LLM.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from research_core.accounts.access import UserRuns
from research_core.accounts.records import User
from research_core.accounts.store import AccountStore
from research_core.configuration import LLMSettings, build_run_config
from research_core.runs.runner import Runner
from research_core.runs.store import RunStore
from research_core.search.library import DocumentLibrary
from tests.test_browser_journey import (
    CHROMIUM_ARGS,
    DOCUMENTS,
    QUESTION,
    chromium,
    llm_url,
    running_app,
    workbench_env,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "test-output"
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}
__all__ = ["chromium", "llm_url"]  # the fixtures this module borrows


@pytest.fixture
def team_app(tmp_path: Path, llm_url: str) -> Iterator[tuple[str, str, Path]]:
    """The workbench with two researchers, Alice and Bob, and Alice's finished private run: (url, run id, db)."""
    db = tmp_path / "data" / "arbor.db"
    library = DocumentLibrary(db)
    for name, text in DOCUMENTS.items():
        library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")
    accounts = AccountStore(db)
    accounts.add("alice", "researcher", PASSWORDS["alice"])
    accounts.add("bob", "researcher", PASSWORDS["bob"])
    accounts.close()
    llm = LLMSettings(provider="openai", base_url=llm_url, model="gpt-4o-mini", timeout_s=30, max_retries=0)
    runner = Runner(db, llm_settings=llm, api_key="sk-test")
    config = build_run_config(
        "general", QUESTION, search_backends=["library"], mode="hierarchical", auto_approve=True, max_iterations=4
    )
    snap = UserRuns(runner, User("alice", "researcher")).start(QUESTION, config)
    assert snap.status == "completed"
    runner.store.close()

    with running_app(workbench_env(db, llm_url, tmp_path), tmp_path) as url:
        yield url, snap.run_id, db


def sign_in(page, name: str) -> None:
    """Fill the sign-in form of a fresh session and submit it."""
    from playwright.sync_api import expect

    expect(page.get_by_role("heading", name="Arbor")).to_be_visible()
    page.get_by_role("textbox", name="Name").fill(name)
    page.get_by_role("textbox", name="Password").fill(PASSWORDS[name])
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_test_id("stSidebar").get_by_text(name, exact=True)).to_be_visible()


def no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def test_two_people_a_private_run_then_shared_read_only_and_forked(chromium: Path, team_app) -> None:
    from playwright.sync_api import expect, sync_playwright

    url, run_id, db = team_app
    report = f"{url}/report?run={run_id}"
    OUTPUT.mkdir(exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            alice = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            bob = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            for page in (alice, bob):
                page.set_default_timeout(60_000)

            # Alice opens her run by its URL: the sign-in first, then the report
            alice.goto(report)
            sign_in(alice, "alice")
            expect(alice.get_by_role("heading", name="Report", exact=True)).to_be_visible()
            expect(alice.get_by_role("heading", name=QUESTION, exact=True)).to_be_visible()
            expect(alice.get_by_text("alice's run · private")).to_be_visible()
            no_exception(alice)

            # Bob, with the same URL: refused exactly as a run that does not exist, and nothing of it shown
            bob.goto(report)
            sign_in(bob, "bob")
            expect(bob.get_by_text(f"No run {run_id} you can open.")).to_be_visible()
            assert bob.get_by_text(QUESTION).count() == 0
            no_exception(bob)
            bob.goto(f"{url}/report?run=20990101-000000-abcdef")
            sign_in(bob, "bob")
            expect(bob.get_by_text("No run 20990101-000000-abcdef you can open.")).to_be_visible()

            # Alice shares it
            alice.get_by_text("Shared with the team", exact=True).click()
            expect(alice.get_by_text("alice's run · shared with the team")).to_be_visible()
            assert RunStore(db).get(run_id).visibility == "team"

            # Bob opens it now: read-only, with Fork and no sharing switch
            bob.goto(report)
            sign_in(bob, "bob")
            expect(bob.get_by_role("heading", name=QUESTION, exact=True)).to_be_visible()
            expect(bob.get_by_text("Read-only: this is alice's run, shared with the team.")).to_be_visible()
            assert bob.get_by_text("Shared with the team", exact=True).count() == 0
            no_exception(bob)
            bob.screenshot(path=str(OUTPUT / "shared-read-only.png"))

            # ... and on the Run page: no gate answers, no resume
            bob.get_by_test_id("stSidebar").get_by_role("link", name="Run", exact=True).click()
            expect(bob.get_by_role("heading", name="Run", exact=True)).to_be_visible()
            expect(bob.get_by_text("Read-only: this is alice's run")).to_be_visible()
            assert bob.get_by_role("button", name="Resume").count() == 0

            # Bob forks it: a run of his own with Alice's plan, at its plan review
            bob.get_by_role("button", name="Fork").click()
            expect(bob.get_by_role("heading", name="Review plan")).to_be_visible()
            expect(bob.get_by_role("button", name="Approve and research")).to_be_visible(timeout=90_000)
            no_exception(bob)
            forks = [r for r in RunStore(db).list() if r.id != run_id]
            assert len(forks) == 1 and (forks[0].owner, forks[0].visibility) == ("bob", "private")

            # Alice's History: her run, not Bob's private fork
            alice.get_by_test_id("stSidebar").get_by_role("link", name="History").click()
            expect(alice.get_by_role("heading", name="History")).to_be_visible()
            expect(alice.get_by_text("Your runs and the runs shared with the team.")).to_be_visible()
            no_exception(alice)
            assert forks[0].id not in alice.content()
        finally:
            browser.close()
