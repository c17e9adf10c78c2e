"""research_core.sources.cache: pages by URL in the run database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from research_core.sources.cache import CachedPage, PageCache


def test_pages_survive_a_new_cache_object_on_the_same_database(tmp_path: Path) -> None:
    db = tmp_path / "arbor.db"
    PageCache(db).put(CachedPage(url="https://a.example/", ok=True, title="A", text="alpha text", kind="html"))
    PageCache(db).put(CachedPage(url="https://b.example/", ok=False, reason="http_status", note="HTTP 404"))

    again = PageCache(db)
    hit = again.get("https://a.example/")
    assert hit is not None and hit.ok and hit.text == "alpha text" and hit.fetched_at
    miss = again.get("https://b.example/")
    assert miss is not None and not miss.ok and miss.note == "HTTP 404"
    assert again.get("https://c.example/") is None
    assert again.count() == 2


def test_old_entries_count_as_missing(tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "arbor.db", max_age_s=3600)
    old = (datetime.now(UTC) - timedelta(hours=2)).isoformat(timespec="seconds")
    cache.put(CachedPage(url="https://old.example/", ok=True, text="stale", fetched_at=old))
    assert cache.get("https://old.example/") is None


def test_a_cache_without_a_database_lives_in_memory() -> None:
    cache = PageCache(None)
    cache.put(CachedPage(url="u", ok=True, text="t"))
    assert cache.get("u").text == "t" and cache.count() == 1
