"""The workbench with accounts, under AppTest: signing in, and what each role may do on each page.

Same setup as tests/test_app_pages.py (a tmp SQLite file with library documents, the scripted LLM,
ARBOR_SEARCH=library). Accounts are added and runs made through the stores and the run API, the
way the CLI would; each page is then opened as one account in a fresh session.
Alice and Bob research, Vera reads, Root administers.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research_core.accounts.access import UserRuns
from research_core.accounts.records import User
from research_core.accounts.store import AccountStore
from research_core.runs.store import RunStore
from research_core.search.library import DocumentLibrary
from tests.conftest import DOCUMENTS
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.test_app_pages import (
    APP,
    QUESTION,
    button,
    no_exception,
    open_page,
    run_config,
    runner_for,
    texts,
    wait_for,
)

pytestmark = pytest.mark.timeout(300)

PASSWORDS = {"root": "root-password", "alice": "alice-password", "bob": "bob-password", "vera": "vera-password"}
ROLES = {"root": "admin", "alice": "researcher", "bob": "researcher", "vera": "viewer"}
PRIVATE_QUESTION = "Compare SQLite and PostgreSQL for Alice's private web app budget"
MISSING = "20990101-000000-abcdef"


def quick(**overrides):
    """A short finished run's settings: few iterations, no checks after the report."""
    values = {"auto_approve": True, "max_iterations": 4, "max_depth": 1, "adaptive_plan": False}
    return run_config(**{**values, "verify_citations": False, "coverage_check": False, **overrides})


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One database for the module: library documents, the accounts, and three finished runs (Alice's
    private one, Alice's shared one, Bob's private one). Each test works on a copy of it."""
    db = tmp_path_factory.mktemp("template") / "arbor.db"
    library = DocumentLibrary(db)
    for name, text in DOCUMENTS.items():
        library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")
    store = AccountStore(db)
    for name, role in ROLES.items():
        store.add(name, role, PASSWORDS[name])
    store.close()
    with serve(ScriptedLLM()) as (url, _script):
        runner = runner_for({"db": db, "url": url})
        alice, bob = UserRuns(runner, User("alice", "researcher")), UserRuns(runner, User("bob", "researcher"))
        runs = {
            "private": alice.start(PRIVATE_QUESTION, quick(mode="flat")).run_id,
            "shared": alice.start(QUESTION, quick()).run_id,
            "bobs": bob.start(QUESTION, quick(mode="flat")).run_id,
        }
        alice.set_visibility(runs["shared"], "team")
        runner.store.close()
    return db, runs


@pytest.fixture
def team(env: dict, template: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> dict:
    """The app's environment (`env`) on a copy of the module's database, with a runner on it."""
    source, runs = template
    db = env["db"].parent.parent / "team" / "arbor.db"
    db.parent.mkdir()
    with sqlite3.connect(source) as original, sqlite3.connect(db) as copy:
        original.backup(copy)
    monkeypatch.setenv("ARBOR_DB", str(db))
    return {**env, **runs, "db": db, "runner": runner_for({**env, "db": db})}


def fresh(run_id: str | None = None, secrets: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if run_id:
        at.query_params["run"] = run_id
    for key, value in (secrets or {}).items():
        at.secrets[key] = value
    return at.run()


def sign_in(at: AppTest, name: str, password: str | None = None) -> AppTest:
    at.text_input(key="signin_name").input(name)
    at.text_input(key="signin_password").input(PASSWORDS.get(name, "") if password is None else password)
    return button(at, "Sign in").click().run()


def as_(name: str, page: str | None = None, run_id: str | None = None) -> AppTest:
    """A fresh session signed in as `name`, on `page` (with `?run=run_id`)."""
    at = sign_in(fresh(run_id), name)
    no_exception(at)
    assert at.session_state["arbor_user"] == name
    return open_page(at, page) if page else at


def everything(at: AppTest) -> str:
    """Every text the page shows (titles, markdown, captions, alerts, tables), to look for what must not be there."""
    parts = [texts(e) for e in (at.title, at.markdown, at.caption, at.info, at.error, at.warning, at.success)]
    parts += [f.value.to_string() for f in at.dataframe]
    parts += [str(s.options) for s in at.selectbox]
    return "\n".join(parts)


def labels(at: AppTest) -> list[str]:
    return [b.label for b in at.button]


def downloads(at: AppTest) -> list[str]:
    return [d.label for d in at.get("download_button")]


# ---- signing in ----------------------------------------------------------------------------------


def test_with_accounts_nothing_but_the_sign_in_form_shows_until_signed_in(team) -> None:
    at = fresh(team["shared"])
    no_exception(at)
    assert [t.value for t in at.title] == ["Arbor"] and labels(at) == ["Sign in"]
    assert QUESTION not in everything(at) and not at.sidebar.markdown
    at = open_page(at, "app_pages/history.py")
    assert [t.value for t in at.title] == ["Arbor"]  # no page runs before signing in
    at = sign_in(at, "alice", "not-her-password")
    assert "Wrong name or password." in texts(at.error) and [t.value for t in at.title] == ["Arbor"]
    at = sign_in(at, "nobody", "whatever-password")
    assert "Wrong name or password." in texts(at.error)  # an unknown name: the same words
    at = sign_in(at, "alice")
    no_exception(at)
    assert at.title[0].value == "History"  # the page asked for before signing in
    assert "alice" in texts(at.sidebar.markdown) and "Sign out" in labels(at)
    at = button(at, "Sign out").click().run()
    assert [t.value for t in at.title] == ["Arbor"] and labels(at) == ["Sign in"]


def test_repeated_failed_sign_ins_make_that_name_wait(team) -> None:
    store = AccountStore(team["db"])
    store.add("mallet", "viewer", "mallet-password")
    store.close()
    at = fresh()
    for _ in range(5):
        at = sign_in(at, "mallet", "a-wrong-guess")
        assert "Wrong name or password." in texts(at.error)
    at = sign_in(at, "mallet", "mallet-password")  # even the right password waits now
    assert "Too many failed sign-ins" in texts(at.error) and [t.value for t in at.title] == ["Arbor"]


def test_a_removed_account_is_signed_out_at_its_next_page_run(team) -> None:
    at = as_("bob", "app_pages/history.py")
    store = AccountStore(team["db"])
    store.remove("bob")
    store.close()
    at.run()
    assert [t.value for t in at.title] == ["Arbor"] and labels(at) == ["Sign in"]


# ---- History: own and shared runs ----------------------------------------------------------------


def test_history_lists_ones_own_runs_and_those_shared_with_the_team(team) -> None:
    for name, expected in (
        ("alice", {team["private"], team["shared"]}),
        ("bob", {team["shared"], team["bobs"]}),
        ("vera", {team["shared"]}),
        ("root", {team["shared"]}),  # an admin does not see a private run either
    ):
        at = as_(name, "app_pages/history.py")
        no_exception(at)
        frame = at.dataframe[0].value
        assert set(frame["id"]) == expected, name
        assert set(frame.columns) >= {"owner", "shared"}
        if name != "alice":
            assert PRIVATE_QUESTION not in everything(at)


def test_the_owner_shares_and_unshares_from_history(team) -> None:
    at = as_("alice", "app_pages/history.py")
    at.selectbox(key="history_selected").set_value(team["private"]).run()
    toggle = at.toggle(key=f"history_share_{team['private']}")
    assert toggle.value is False and "Delete…" in labels(at)
    toggle.set_value(True).run()
    no_exception(at)
    assert RunStore(team["db"]).get(team["private"]).visibility == "team"
    assert team["private"] in set(as_("bob", "app_pages/history.py").dataframe[0].value["id"])
    at.toggle(key=f"history_share_{team['private']}").set_value(False).run()
    assert RunStore(team["db"]).get(team["private"]).visibility == "private"


# ---- someone else's private run: refused, revealing nothing ----------------------------------------


@pytest.mark.parametrize("page", ["app_pages/run.py", "app_pages/report.py", "app_pages/review_plan.py"])
def test_a_url_naming_someone_elses_private_run_is_refused_like_a_missing_run(team, page) -> None:
    for name in ("bob", "vera", "root"):
        seen = []
        for target in (team["private"], MISSING):
            at = as_(name, page, run_id=target)
            no_exception(at)
            shown = everything(at)
            assert f"No run {target} you can open." in texts(at.info)
            assert PRIVATE_QUESTION not in shown and "Fork" not in labels(at)
            assert not at.sidebar.markdown or "Current run" not in texts(at.sidebar.markdown)
            seen.append(shown.replace(target, "ID"))
        assert seen[0] == seen[1], (name, page)  # word for word what a run that does not exist gets


# ---- someone else's shared run: read-only, and forked -----------------------------------------------


def test_a_shared_run_opens_read_only_everywhere(team) -> None:
    shared = team["shared"]
    at = as_("bob", "app_pages/report.py", run_id=shared)
    no_exception(at)
    assert at.title[0].value == "Report" and "Read-only: this is alice's run, shared with the team" in texts(at.info)
    assert "Fork" in labels(at) and not at.toggle  # no share switch: it is not Bob's
    assert "Markdown" in downloads(at)  # a reader may export what they may read

    at = open_page(at, "app_pages/run.py")
    no_exception(at)
    assert "Read-only" in texts(at.info) and "Fork" in labels(at)
    assert not {"Resume", "Continue", "Stop here"} & set(labels(at))

    at = open_page(at, "app_pages/history.py")
    at.selectbox(key="history_selected").set_value(shared).run()
    no_exception(at)
    assert "Open report" in labels(at) and "Fork" in labels(at)
    assert not {"Delete…", "Resume", "Re-run this branch"} & set(labels(at))
    assert not at.expander or "Re-run one branch" not in [e.label for e in at.expander]


def test_fork_copies_the_plan_into_a_run_of_ones_own_stopped_at_its_review(team) -> None:
    at = as_("bob", "app_pages/report.py", run_id=team["shared"])
    at = button(at, "Fork").click().run()
    no_exception(at)
    store = RunStore(team["db"])
    forks = [r for r in store.list() if r.id not in (team["private"], team["shared"], team["bobs"])]
    assert len(forks) == 1
    fork = store.get(forks[0].id)
    assert (fork.owner, fork.visibility, fork.question) == ("bob", "private", QUESTION)
    original = team["runner"].snapshot(team["shared"])
    # the plan as researched: a branch the run skipped (an added one its budget did not reach) is not copied
    researched = [b.question_text for b in original.branches if b.status != "skipped"]
    assert [sq["question_text"] for sq in fork.plan["sub_questions"]] == researched
    assert at.title[0].value == "Review plan" and fork.id in at.query_params["run"]
    assert fork.id not in set(as_("alice", "app_pages/history.py").dataframe[0].value["id"])


def test_a_shared_run_waiting_for_review_shows_its_plan_read_only(team) -> None:
    alice = UserRuns(team["runner"], User("alice", "researcher"))
    waiting = alice.start(QUESTION, run_config()).run_id
    assert team["runner"].snapshot(waiting).status == "awaiting_review"
    alice.set_visibility(waiting, "team")
    at = as_("bob", "app_pages/review_plan.py", run_id=waiting)
    no_exception(at)
    assert "Read-only" in texts(at.info) and "Fork" in labels(at)
    assert not {"Approve and research", "Split", "Apply order"} & set(labels(at))
    assert "sq_001" in set(at.dataframe[0].value["id"])
    at = as_("alice", "app_pages/review_plan.py", run_id=waiting)  # its owner reviews it
    assert "Approve and research" in labels(at)


def test_a_shared_run_paused_at_a_step_gate_offers_its_reader_no_answer(team) -> None:
    alice = UserRuns(team["runner"], User("alice", "researcher"))
    paused = alice.start(QUESTION, quick(step_mode=True)).run_id
    assert team["runner"].snapshot(paused).status == "awaiting_step"
    alice.set_visibility(paused, "team")
    at = as_("bob", "app_pages/run.py", run_id=paused)
    no_exception(at)
    assert "Read-only" in texts(at.info) and "Fork" in labels(at)
    assert not {"Continue", "Stop early and write the report", "Resume"} & set(labels(at))
    at = as_("alice", "app_pages/run.py", run_id=paused)  # its owner answers it
    assert {"Continue", "Stop early and write the report"} <= set(labels(at))


# ---- roles ------------------------------------------------------------------------------------------


def test_a_viewer_reads_and_starts_nothing(team) -> None:
    at = as_("vera")
    no_exception(at)
    assert at.title[0].value == "History"  # a viewer starts on History
    at = open_page(at, "app_pages/new_research.py")
    assert "Your role (viewer) reads runs" in texts(at.info) and "Propose plan" not in labels(at)
    at = open_page(at, "app_pages/library.py")
    no_exception(at)
    assert "Add to library" not in labels(at) and "Remove" not in labels(at)
    at = open_page(at, "app_pages/compare.py")
    no_exception(at)
    assert "Research both ways" not in labels(at)
    at = as_("vera", "app_pages/report.py", run_id=team["shared"])
    no_exception(at)
    assert "Read-only: this is alice's run, shared with the team." in texts(at.info)
    assert "Fork" not in labels(at) and "Markdown" in downloads(at)


def test_only_an_admin_sees_the_settings_and_the_endpoint(team) -> None:
    for name in ("alice", "vera"):
        at = as_(name)
        assert team["url"] not in everything(at) + texts(at.sidebar.caption)
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            at.switch_page("app_pages/settings.py")  # not in their navigation at all
    at = as_("root", "app_pages/settings.py")
    no_exception(at)
    assert at.title[0].value == "Settings" and "Save settings" in labels(at)
    assert "Use for this session" not in labels(at) and "Save on the server" in labels(at)
    assert team["url"] in texts(at.sidebar.caption)  # the admin sees where the LLM calls go


def test_the_settings_page_itself_refuses_whoever_is_not_an_admin(team) -> None:
    at = AppTest.from_file(str(Path(APP).parent / "app_pages" / "settings.py"), default_timeout=60)
    at.session_state["arbor_acting_user"] = User("alice", "researcher")
    at.run()
    no_exception(at)
    assert "Only an admin sees and changes the settings" in texts(at.info) and "Save settings" not in labels(at)


def test_an_api_key_saved_by_the_admin_is_used_and_never_shown_whole(team, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    secret = "sk-team-key-0123456789abcdefXYZ9"
    at = as_("root", "app_pages/settings.py")
    at.text_input(key="set_server_key_input").input(secret).run()
    at = button(at, "Save on the server").click().run()
    no_exception(at)
    shown = everything(at)
    assert secret not in shown and "sk-…XYZ9" in shown and "saved on the server" in shown
    assert at.text_input(key="set_server_key_input").value == ""
    at = as_("alice", "app_pages/new_research.py")
    at.text_area(key="nr_question").input(QUESTION).run()
    at = button(at, "Propose plan").click().run()
    no_exception(at)
    sent = team["scripted"].authorizations
    deadline = time.time() + 60
    while not sent and time.time() < deadline:  # the run proposes its plan on the server's thread
        time.sleep(0.2)
    assert sent and sent[0] == f"Bearer {secret}"  # the key saved on the server went to the LLM
    rows = RunStore(team["db"])
    started = rows.list()[0]
    assert started.owner == "alice"
    wait_for(team["runner"], started.id, ("awaiting_review",))
    for run in rows.list():
        assert secret not in repr(rows.get(run.id))


# ---- OIDC through Streamlit's st.login ----------------------------------------------------------------

AUTH = {
    "redirect_uri": "http://localhost:8501/oauth2callback",
    "cookie_secret": "x" * 32,
    "client_id": "arbor",
    "client_secret": "secret",
    "server_metadata_url": "https://idp.example/.well-known/openid-configuration",
}


def test_with_a_provider_and_local_accounts_the_sign_in_page_offers_both(team) -> None:
    at = fresh(team["shared"], secrets={"auth": AUTH})
    no_exception(at)
    assert [t.value for t in at.title] == ["Arbor"] and labels(at) == ["Log in", "Sign in"]
    assert QUESTION not in everything(at)
    at = sign_in(at, "bob")  # a local account still signs in with its password
    assert at.session_state["arbor_user"] == "bob"


def test_a_provider_signed_in_user_acts_as_the_account_of_their_e_mail(team, monkeypatch) -> None:
    from ui import accounts

    store = AccountStore(team["db"])
    store.add("Dana@Example.com", "viewer", None)
    store.close()
    monkeypatch.setattr(accounts, "oidc_identity", lambda: "dana@example.com")
    at = fresh(secrets={"auth": AUTH})
    no_exception(at)
    assert at.title[0].value == "History" and set(at.dataframe[0].value["id"]) == {team["shared"]}
    assert "dana@example.com" in texts(at.sidebar.markdown) and "viewer" in texts(at.sidebar.markdown)
    at = open_page(at, "app_pages/run.py")
    at.query_params["run"] = team["private"]
    at.run()
    assert f"No run {team['private']} you can open." in texts(at.info)

    monkeypatch.setattr(accounts, "oidc_identity", lambda: "stranger@example.com")
    at = fresh(team["shared"], secrets={"auth": AUTH})
    no_exception(at)
    assert "signed in as stranger@example.com, but this workbench has no account of that name" in texts(at.error)
    assert labels(at) == ["Log out"] and QUESTION not in everything(at)


def test_a_provider_without_accounts_signs_everyone_in_as_the_one_local_user(env, monkeypatch) -> None:
    from ui import accounts

    monkeypatch.setattr(accounts, "oidc_identity", lambda: "anyone@example.com")
    at = fresh(secrets={"auth": AUTH})
    no_exception(at)
    assert at.title[0].value == "New research" and "Sign out" not in labels(at)  # as before accounts
    assert "Save settings" in labels(open_page(at, "app_pages/settings.py"))


# ---- the same on PostgreSQL ------------------------------------------------------------------------------


@pytest.mark.postgres
def test_on_postgresql_history_and_the_url_refusal_follow_the_same_rules(env, postgres_url, monkeypatch) -> None:
    monkeypatch.setenv("ARBOR_DATABASE_URL", postgres_url)
    store = AccountStore(postgres_url)
    for name, role in ROLES.items():
        store.add(name, role, PASSWORDS[name])
    store.close()
    runner = runner_for({**env, "db": postgres_url})
    alice = UserRuns(runner, User("alice", "researcher"))
    private = alice.start(PRIVATE_QUESTION, quick(mode="flat")).run_id
    shared = alice.start(QUESTION, quick(mode="flat")).run_id
    alice.set_visibility(shared, "team")

    at = as_("bob", "app_pages/history.py")
    no_exception(at)
    assert set(at.dataframe[0].value["id"]) == {shared}
    for target in (private, MISSING):
        at = as_("bob", "app_pages/report.py", run_id=target)
        assert f"No run {target} you can open." in texts(at.info) and PRIVATE_QUESTION not in everything(at)
    at = as_("bob", "app_pages/report.py", run_id=shared)
    assert "Read-only: this is alice's run, shared with the team." in texts(at.info) and "Fork" in labels(at)
    at = as_("alice", "app_pages/history.py")
    assert set(at.dataframe[0].value["id"]) == {private, shared}
