"""Whole runs against a hostile web: stopping, search failures, the page cache's life and the SearXNG URL's secrets.

The web is tests/fakes/local_web.py on 127.0.0.1 answering as SearXNG and serving the pages its
results point at; the LLM is the scripted stub. CLI runs that must show how the process ends run
as subprocesses; the others call `main` in-process.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from research_core.cli.main import main
from research_core.runs.runner import Runner
from research_core.search.base import SearchError
from research_core.search.searxng import SearxngSearch
from research_core.search.web import SearchTimeoutError
from research_core.sources.cache import CachedPage, PageCache
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.local_web import LocalWeb, Route, serve_local_web
from tests.reliability_support import spawn_cli, wait_for
from tests.test_app_pages import app, button, no_exception, open_page, texts

pytestmark = pytest.mark.timeout(120)

QUESTION = "How does write-ahead logging let SQLite readers continue?"
ARTICLE = (
    "<html><head><title>Write-ahead logging in SQLite</title></head><body><p>"
    + "Write-ahead logging lets SQLite readers continue while a writer commits its changes. " * 12
    + "</p></body></html>"
)
FLAT = ["--set", "mode=flat", "--max-iterations", "2", "--set", "fetch_private_addresses=true"]
SECRET = "s3cr3t-T0KEN-4f9a8b7c6d5e"


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web(LocalWeb(root=None, pages={"wal.html": ARTICLE})) as served:
        yield served


@pytest.fixture
def llm_url() -> Iterator[str]:
    with serve(ScriptedLLM()) as (url, _):
        yield url


@pytest.fixture
def cli(tmp_path, monkeypatch, llm_url) -> Iterator:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ARBOR_DB", "ARBOR_SEARXNG_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    common = ["--db", str(tmp_path / "cli.db"), "--llm", "openai", "--llm-base-url", llm_url]
    return lambda *args: main([*args, *common])


def searxng_run(web: LocalWeb, *extra: str) -> list[str]:
    return ["run", QUESTION, "--auto", "--search", "searxng", "--searxng-url", web.base_url, *FLAT, *extra]


def drip_page(web: LocalWeb) -> None:
    """The search's one result drips its page one byte every 0.3 s for up to 60 s."""
    web.add_page("drip.html", ARTICLE)  # indexed, so the search finds it
    web.route("drip.html", Route(body=ARTICLE.encode(), drip_s=0.3, drip_for_s=60))


# ---- stopping while a page drips ---------------------------------------------------------------


def test_sigterm_while_a_page_drips_ends_the_process_at_once(tmp_path, web, llm_url) -> None:
    drip_page(web)
    proc = spawn_cli(searxng_run(web), tmp_path / "arbor.db", llm_url)
    try:
        wait_for(lambda: web.fetches("drip.html"), 60, "the dripping page to be fetched")
        time.sleep(0.5)
        stopped = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        _out, err = proc.communicate(timeout=20)
        assert time.monotonic() - stopped < 5.0  # was 143 s: leftover fetch threads held the exit
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM; everything gathered so far is saved" in err and "Traceback" not in err


def test_a_run_reading_a_dripping_page_exits_right_after_its_result(tmp_path, web, llm_url) -> None:
    drip_page(web)
    result = tmp_path / "result.json"
    command = searxng_run(web, "--set", "read_deadline_s=2", "--json", str(result))
    proc = spawn_cli(command, tmp_path / "arbor.db", llm_url)
    try:
        _out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    ended = time.time()
    assert proc.returncode == 0, err
    assert ended - result.stat().st_mtime < 4.0  # was 60 s: the interpreter waited for the fetch thread
    assert web.fetches("drip.html") >= 1  # the run did meet the dripping page


# ---- SearXNG that drips, floods or fails -------------------------------------------------------


def test_a_dripping_searxng_answer_fails_the_query_at_its_deadline(web) -> None:
    web.route("search", Route(body=b'{"results": []}' * 40, content_type="application/json", drip_s=0.2))
    backend = SearxngSearch(web.base_url, timeout_s=1.0, max_retries=0)
    started = time.monotonic()
    with pytest.raises(SearchTimeoutError):
        backend.search("sqlite", 5)
    assert time.monotonic() - started < 4.0  # 2 x timeout + 1; was unbounded while bytes came


def test_an_oversized_searxng_answer_is_refused(web) -> None:
    rows = [{"url": f"https://x.example/{n}", "title": "t", "content": "c" * 3000} for n in range(1000)]
    web.route("search", Route(body=json.dumps({"results": rows}).encode(), content_type="application/json"))
    with pytest.raises(SearchError) as caught:
        SearxngSearch(web.base_url).search("sqlite", 5)
    assert "larger than 2 MB" in caught.value.user_message and caught.value.retryable


@pytest.mark.parametrize(
    ("route", "reason"),
    [
        (Route(status=500, body=b"oops", content_type="text/plain"), "SearXNG answered HTTP 500."),
        (Route(body=b"<html>a login page</html>", content_type="text/html"), "other than its search JSON"),
    ],
)
def test_searxng_failing_every_query_is_a_warning_on_stderr_and_in_the_report(
    cli, capsys, tmp_path, web, route, reason
) -> None:
    web.route("search", route)
    assert cli(*searxng_run(web, "--json", str(tmp_path / "r.json"))) == 0
    err = capsys.readouterr().err
    assert any(line.startswith("arbor: warning: SearXNG") and reason in line for line in err.splitlines()), err
    warnings = json.loads((tmp_path / "r.json").read_text())["warnings"]
    assert any(reason in w for w in warnings), warnings


def test_a_rate_limited_searxng_is_a_warning_in_the_report(tmp_path, web, llm_url) -> None:
    web.route("search", Route(status=429, body=b"slow down", content_type="text/plain"))
    runner = make_runner(tmp_path, llm_url, backends=[SearxngSearch(web.base_url, backoff_s=0.0)])
    snap = runner.start(QUESTION, config(mode="flat", max_iterations=2, search_backends=["searxng"]))
    assert any("SearXNG is rate-limiting requests (HTTP 429)" in w for w in snap.warnings), snap.warnings


# ---- the page cache's life ---------------------------------------------------------------------


def cached_urls(db: Path) -> set[str]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return {row[0] for row in conn.execute("SELECT url FROM page_cache")}


def run_ids(db: Path) -> list[str]:
    return [r.id for r in Runner(db).runs()]


def test_deleting_runs_removes_the_pages_only_they_read(cli, tmp_path, web) -> None:
    db = tmp_path / "cli.db"
    assert cli(*searxng_run(web)) == 0
    assert cli(*searxng_run(web)) == 0  # reads the same page from the cache
    assert web.url("wal.html") in cached_urls(db)
    first, second = run_ids(db)
    assert cli("delete", first) == 0
    assert web.url("wal.html") in cached_urls(db)  # the other run still uses it
    assert cli("delete", second) == 0
    assert cached_urls(db) == set()


def test_the_cache_can_be_emptied_from_the_command_line(cli, capsys, tmp_path, web) -> None:
    assert cli(*searxng_run(web)) == 0
    capsys.readouterr()
    assert cli("cache", "info") == 0
    assert capsys.readouterr().out.startswith("1 page in the page cache")
    assert cli("cache", "clear") == 0
    assert capsys.readouterr().out.strip() == "emptied the page cache: 1 page removed"
    assert cached_urls(tmp_path / "cli.db") == set()
    assert main(["cache", "clear", "--db", str(tmp_path / "typo.db")]) == 2  # a mistyped database is not created
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "typo.db").exists()


def test_stale_and_future_dated_entries_are_purged(tmp_path) -> None:
    db = tmp_path / "arbor.db"
    now = datetime.now(UTC)
    cache = PageCache(db)
    for url, when in (
        ("https://old.example/", now - timedelta(days=8)),
        ("https://next.example/", now + timedelta(days=2)),
    ):
        cache.put(CachedPage(url=url, ok=True, text="cached text", fetched_at=when.isoformat(timespec="seconds")))
    cache.put(CachedPage(url="https://fresh.example/", ok=True, text="cached text"))
    assert cache.get("https://next.example/") is None  # a date in the future is not fresh
    assert PageCache(db).count() == 1  # opening the cache deletes what is stale
    assert cached_urls(db) == {"https://fresh.example/"}


def test_the_settings_page_empties_the_cache(env: dict) -> None:
    PageCache(env["db"]).put(CachedPage(url="https://a.example/", ok=True, text="cached text"))
    at = open_page(app(), "app_pages/settings.py")
    assert "Page cache: 1 page" in texts(at.caption)
    button(at, "Empty the page cache").click().run()
    no_exception(at)
    assert "Emptied the page cache (1 page)" in texts(at.success)
    assert PageCache(env["db"]).count() == 0


# ---- a token in the SearXNG URL ----------------------------------------------------------------


def test_a_token_in_the_searxng_url_is_used_but_never_stored_or_shown(cli, capsys, tmp_path, web) -> None:
    with_token = web.base_url.replace("http://", f"http://arbor:{SECRET}@") + f"/?token={SECRET}"
    out = tmp_path / "report.md"
    args = searxng_run(web, "-v", "--json", str(tmp_path / "r.json"), "--out", str(out))
    args[args.index(web.base_url)] = with_token
    assert cli(*args) == 0
    assert any(f"token={SECRET}" in r for r in web.requests if r.startswith("/search"))  # sent to the instance
    shown = "".join(capsys.readouterr())
    assert cli("export", run_ids(tmp_path / "cli.db")[0], "--format", "jsonl") == 0
    shown += "".join(capsys.readouterr())
    stored = (tmp_path / "cli.db").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("cli.db-*") if p.is_file()
    )
    written = (tmp_path / "r.json").read_text() + out.read_text()
    for where, text in (("terminal", shown), ("database", stored.decode("latin-1")), ("exports", written)):
        assert SECRET not in text, where
    (run,) = Runner(tmp_path / "cli.db").runs()
    assert Runner(tmp_path / "cli.db").store.get(run.id).config["searxng_url"] == web.base_url
