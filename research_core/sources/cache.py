"""The page cache: each page's extracted text, or why it could not be read, by URL in the run database.

A resumed run, a branch re-run or a later run that meets the same URL reads it from here instead
of fetching it again. Failures that would repeat (a 404, a refused type, an oversized page, no
text) are kept too; passing ones (timeouts, connection errors, 5xx) are not, so the next run
tries again. Entries older than `max_age_s` count as missing. Within one process, a URL being
fetched by one branch is not fetched again by another at the same time (`claim`/`release`).
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from research_core.db import connect
from research_core.schemas import utc_now

PAGE_CACHE_MAX_AGE_S = 7 * 24 * 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS page_cache (
    url TEXT PRIMARY KEY,
    ok INTEGER NOT NULL,
    final_url TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    fetched_at TEXT NOT NULL
)
"""
_COLUMNS = ("url", "ok", "final_url", "title", "text", "kind", "reason", "note", "fetched_at")


class CachedPage(BaseModel):
    """A page as read once: its text (`ok`), or the reason and note of its failure."""

    url: str
    ok: bool
    final_url: str = ""
    title: str = ""
    text: str = ""
    kind: str = ""
    reason: str = ""
    note: str = ""
    fetched_at: str = ""


class PageCache:
    """Pages by URL in the SQLite file `db_path` (table `page_cache`); in memory when `db_path` is None.

    Thread-safe: every operation opens its own connection (WAL mode, busy timeout).
    """

    def __init__(self, db_path: Path | str | None, max_age_s: float = PAGE_CACHE_MAX_AGE_S):
        self.db_path = Path(db_path) if db_path is not None else None
        self.max_age_s = max_age_s
        self._memory: dict[str, CachedPage] = {}
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        if self.db_path is not None:
            conn = connect(self.db_path)
            try:
                with conn:
                    conn.execute(_SCHEMA)
            finally:
                conn.close()

    def _fresh(self, page: CachedPage) -> bool:
        try:
            fetched = datetime.fromisoformat(page.fetched_at)
        except ValueError:
            return False
        return datetime.now(UTC) - fetched <= timedelta(seconds=self.max_age_s)

    def get(self, url: str) -> CachedPage | None:
        """The cached page for `url`, or None if it is missing or too old."""
        if self.db_path is None:
            with self._lock:
                page = self._memory.get(url)
        else:
            conn = connect(self.db_path)
            try:
                row = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM page_cache WHERE url = ?", [url]).fetchone()
            except sqlite3.Error:
                row = None
            finally:
                conn.close()
            page = CachedPage(**dict(zip(_COLUMNS, row, strict=True))) if row else None
        return page if page is not None and self._fresh(page) else None

    def put(self, page: CachedPage) -> None:
        """Store (or replace) a page; its `fetched_at` is now unless set."""
        page = page if page.fetched_at else page.model_copy(update={"fetched_at": utc_now()})
        if self.db_path is None:
            with self._lock:
                self._memory[page.url] = page
            return
        values = page.model_dump()
        values["ok"] = int(page.ok)
        conn = connect(self.db_path)
        try:
            with conn:
                conn.execute(
                    f"INSERT OR REPLACE INTO page_cache ({', '.join(_COLUMNS)}) "
                    f"VALUES ({', '.join('?' for _ in _COLUMNS)})",
                    [values[c] for c in _COLUMNS],
                )
        finally:
            conn.close()

    def claim(self, url: str) -> threading.Event | None:
        """Claim the fetch of `url` for this caller (None), or get the Event another caller will set.

        Parallel branches that meet the same URL fetch it once: the first claims it and must call
        `release(url)` when done (after `put`, if the page is to be kept); the others wait on the
        Event, then look in the cache.
        """
        with self._lock:
            event = self._in_flight.get(url)
            if event is None:
                self._in_flight[url] = threading.Event()
            return event

    def release(self, url: str) -> None:
        """End this caller's claim on `url`, waking those waiting for it."""
        with self._lock:
            event = self._in_flight.pop(url, None)
        if event is not None:
            event.set()

    def count(self) -> int:
        """How many pages are cached (fresh or not)."""
        if self.db_path is None:
            with self._lock:
                return len(self._memory)
        conn = connect(self.db_path)
        try:
            return int(conn.execute("SELECT count(*) FROM page_cache").fetchone()[0])
        finally:
            conn.close()
