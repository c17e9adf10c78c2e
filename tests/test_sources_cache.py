"""research_core.sources.cache: pages by URL in the run database (the SQLite file and PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from research_core.sources.cache import CachedPage, PageCache


def test_pages_survive_a_new_cache_object_on_the_same_database(db) -> None:
    PageCache(db).put(CachedPage(url="https://a.example/", ok=True, title="A", text="alpha text", kind="html"))
    PageCache(db).put(CachedPage(url="https://b.example/", ok=False, reason="http_status", note="HTTP 404"))

    again = PageCache(db)
    hit = again.get("https://a.example/")
    assert hit is not None and hit.ok and hit.text == "alpha text" and hit.fetched_at
    miss = again.get("https://b.example/")
    assert miss is not None and not miss.ok and miss.note == "HTTP 404"
    assert again.get("https://c.example/") is None
    assert again.count() == 2


def test_old_entries_count_as_missing(db) -> None:
    cache = PageCache(db, max_age_s=3600)
    old = (datetime.now(UTC) - timedelta(hours=2)).isoformat(timespec="seconds")
    cache.put(CachedPage(url="https://old.example/", ok=True, text="stale", fetched_at=old))
    assert cache.get("https://old.example/") is None


def test_a_cache_without_a_database_lives_in_memory() -> None:
    cache = PageCache(None)
    cache.put(CachedPage(url="u", ok=True, text="t"))
    assert cache.get("u").text == "t" and cache.count() == 1


def test_a_private_page_is_served_only_to_callers_that_allow_private_addresses(db) -> None:
    cache = PageCache(db)
    cache.put(CachedPage(url="http://intranet/", ok=True, text="inside", private=True))
    assert cache.get("http://intranet/") is None
    assert cache.get("http://intranet/", allow_private=True).text == "inside"


def test_an_old_table_gains_the_address_rule_and_its_rows_count_as_private(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "arbor.db"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE page_cache (url TEXT PRIMARY KEY, ok INTEGER NOT NULL, final_url TEXT NOT NULL DEFAULT '', "
            "title TEXT NOT NULL DEFAULT '', text TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '', "
            "reason TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '', fetched_at TEXT NOT NULL)"
        )
        now = datetime.now(UTC).isoformat(timespec="seconds")
        conn.execute("INSERT INTO page_cache (url, ok, text, fetched_at) VALUES ('https://a/', 1, 'old', ?)", [now])
    cache = PageCache(db)
    assert cache.get("https://a/") is None and cache.get("https://a/", allow_private=True).text == "old"


def test_forgetting_runs_removes_only_the_pages_no_other_run_used(db) -> None:
    cache = PageCache(db)
    cache.for_run("r1").put(CachedPage(url="https://shared/", ok=True, text="s"))
    cache.for_run("r2").get("https://shared/")
    cache.for_run("r1").put(CachedPage(url="https://mine/", ok=True, text="m"))
    cache.put(CachedPage(url="https://unowned/", ok=True, text="u"))
    assert cache.forget_runs(["r1"]) == 1
    assert cache.get("https://mine/") is None and cache.get("https://shared/") is not None
    assert cache.forget_runs(["r2"]) == 1 and cache.count() == 1  # an entry no run claimed ages out instead


def test_a_failure_that_may_pass_is_remembered_in_memory_only(db) -> None:
    cache = PageCache(db)
    cache.put_transient(CachedPage(url="https://slow/", ok=False, reason="timeout", note="too slow"))
    assert cache.get("https://slow/").reason == "timeout"
    assert PageCache(db).get("https://slow/") is None and cache.count() == 0
    cache.put(CachedPage(url="https://slow/", ok=True, text="now it answers"))
    assert cache.get("https://slow/").ok


def test_clearing_empties_the_stored_pages_and_what_runs_used(db) -> None:
    cache = PageCache(db)
    cache.for_run("r1").put(CachedPage(url="https://a/", ok=True, text="a"))
    cache.put(CachedPage(url="https://a/", ok=True, text="a again"))  # replaced, not added
    assert cache.get("https://a/").text == "a again" and cache.count() == 1
    assert cache.clear() == 1 and cache.count() == 0 and cache.forget_runs(["r1"]) == 0
