"""Shared fixtures: the scripted LLM server, fixture search and a runner on a real SQLite file."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.nodeid import NodeId

from research_core.configuration import LLMSettings, RunConfig, build_run_config
from research_core.runs.runner import Runner
from research_core.search.library import DocumentLibrary
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FixtureSearch
from tests.postgres_cluster import PostgresCluster, find_bindir

HEAVY_GROUP = "model_and_browser"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The embedded model's and the browser's tests run one after another, on one worker (`--dist loadgroup`).

    Each keeps both cores of a small machine busy (llama.cpp's threads; Chromium with `streamlit run`):
    two at once would slow both towards their timeouts, and two model servers would each load the model.

    pytest-xdist 3.8.0 tells the scheduler a test's group by appending `@group` to its node id through
    `item._nodeid`, which pytest 9.2's structured node ids no longer read (pytest-dev/pytest-xdist#1386):
    without the id set here, every test of the group would go to any worker.
    """
    for item in items:
        if item.get_closest_marker("real_model") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group(HEAVY_GROUP))
            if getattr(config.option, "loadgroup", False) and isinstance(getattr(item, "_id", None), NodeId):
                item._id = NodeId(path=item._id.path, names=(f"{item._id.rest}@{HEAVY_GROUP}",))


@pytest.fixture(autouse=True)
def _the_sqlite_file_unless_a_test_says_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own ARBOR_DATABASE_URL never reaches the tests (or the CLI processes they start)."""
    monkeypatch.delenv("ARBOR_DATABASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _pages_stay_on_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Page reading reaches loopback addresses only in tests, so nothing reaches the internet.

    The fixture corpus's URLs (react.dev, en.wikipedia.org ...) then fail to resolve at once and keep
    their snippets, as they would offline; the local web (127.0.0.1) is read for real.
    """
    from research_core.sources import fetch

    def loopback_only(host: str, port: int) -> list[str]:
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if host == "localhost":
            return ["127.0.0.1"]
        if literal is not None and literal.is_loopback:
            return [host]
        raise socket.gaierror(socket.EAI_NONAME, f"tests reach no address but loopback ({host})")

    monkeypatch.setattr(fetch, "system_resolver", loopback_only)


# ---- storage: the SQLite file, or a database of its own on the tests' PostgreSQL cluster -----------

NO_POSTGRES = "PostgreSQL binaries not found (scripts/setup.sh installs postgresql-15)"


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    """One throw-away PostgreSQL cluster per test process (each xdist worker has its own), deleted at the end."""
    bindir = find_bindir()
    if bindir is None:
        pytest.skip(NO_POSTGRES)
    cluster = PostgresCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_url(postgres_cluster: PostgresCluster) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database for this test alone; the process's pools on it close after."""
    url = postgres_cluster.create_database()
    yield url
    from research_core.storage.checkpoints import close_checkpointer
    from research_core.storage.engines import dispose_engine

    close_checkpointer(url)
    dispose_engine(url)


ENGINES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=ENGINES)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str | Path:
    """Where a test's data lives, once per engine: a SQLite file in tmp_path, or a PostgreSQL URL."""
    if request.param == "postgres":
        return request.getfixturevalue("postgres_url")
    return tmp_path / "arbor.db"


@pytest.fixture
def scripted() -> Iterator[tuple[str, ScriptedLLM]]:
    with serve(ScriptedLLM()) as (url, script):
        yield url, script


def statement_pages(name: str, heading: str, statements: list[str]) -> dict[str, str]:
    """One Markdown page per statement for `library_run`: `<name>-<i>.md`, headed "<heading> <i>"."""
    return {f"{name}-{i}.md": f"# {heading} {i}\n\n{text}" for i, text in enumerate(statements)}


def library_run(
    tmp_path, pages: dict[str, str], question: str, scripted: ScriptedLLM, provider: str = "openai", **run_options
) -> tuple[Runner, object]:
    """An approved run (flat unless `run_options` name a mode) over a library of `pages` (file name ->
    Markdown) with the scripted model; `run_options` override the run's settings. (runner, its final snapshot)."""
    library = DocumentLibrary(tmp_path / "arbor.db")
    for name, text in pages.items():
        library.add_text(name, text, kind="md")
    with serve(scripted) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library], provider=provider)
        run = config(**{"mode": "flat", "auto_approve": True, "search_backends": ["library"], **run_options})
        return runner, runner.start(question, run)


def make_runner(tmp_path, url: str, backends=None, provider: str = "openai", db=None, **settings) -> Runner:
    """A Runner against the scripted server at `url`; provider="local": treated as the embedded model.

    Its database is `db` (a path or a PostgreSQL URL), else tmp_path/arbor.db. `settings` are further
    LLMSettings (a call's timeout is 10 s unless `timeout_s` says otherwise)."""
    settings = {"timeout_s": 10, "max_retries": 0, **settings}
    llm = LLMSettings(provider=provider, base_url=url, model="gpt-4o-mini", **settings)
    where = db if db is not None else tmp_path / "arbor.db"
    return Runner(where, llm_settings=llm, api_key="sk-test", backends=backends or [FixtureSearch()])


@pytest.fixture
def runner(tmp_path, scripted, db) -> Runner:
    """A runner on the scripted server, once on each engine (`db`)."""
    url, _ = scripted
    return make_runner(tmp_path, url, db=db)


def config(**overrides) -> RunConfig:
    values = {"search_backends": ["fixture"], "parallel": 2}
    values.update(overrides)
    return build_run_config("general", **values)


# ---- the workbench's environment (app tests) ----------------------------------------------------

DOCUMENTS = {
    "sqlite-notes.md": "# SQLite notes\n\nSQLite is an embedded database for small web apps. "
    "Write-ahead logging lets readers continue while one writer commits. " * 3,
    "postgres-notes.md": "# PostgreSQL notes\n\nPostgreSQL is a client-server database with MVCC, "
    "so many web app writers work at once; it needs a server process. " * 3,
    "comparison.txt": "Comparing SQLite and PostgreSQL: SQLite suits small web apps with few writers; "
    "PostgreSQL suits concurrent writes, replication and larger teams. " * 3,
}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict]:
    """A tmp database with library documents, the scripted server, and the app's environment."""
    db = tmp_path / "data" / "arbor.db"
    library = DocumentLibrary(db)
    for name, text in DOCUMENTS.items():
        library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")
    with serve(ScriptedLLM()) as (url, scripted):
        monkeypatch.setenv("ARBOR_DB", str(db))
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ARBOR_SEARCH", "library")
        monkeypatch.delenv("ARBOR_LLM_MODEL", raising=False)
        yield {"db": db, "url": url, "scripted": scripted}


# ---- browser tests ---------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _patient_browser_assertions(request: pytest.FixtureRequest) -> Iterator[None]:
    """Give Playwright's `expect` the same 60 s as the pages' default timeout in browser tests.

    `expect` waits 5 s by default, but a page's first script run in a fresh `streamlit run` imports
    the whole engine, which takes longer than that on a busy 2-core machine.
    """
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    from playwright.sync_api import expect

    expect.set_options(timeout=60_000)
    try:
        yield
    finally:
        expect.set_options(timeout=5_000)
