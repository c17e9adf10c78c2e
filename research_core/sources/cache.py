"""The page cache: each page's extracted text, or why it could not be read, by URL in the run database.

A resumed run, a branch re-run or a later run that meets the same URL reads it from here instead
of fetching it again. The rules:
- Failures that would repeat (a 404, a refused type, an oversized page, no text) are kept; passing
  ones (timeouts, connection errors, 5xx) are kept in memory only, for `TRANSIENT_TTL_S`, so one
  run does not wait for the same slow site every iteration and the next process tries again.
- The address rule is kept: a page served from a non-public address (fetched by a run that allowed
  them) is `private`, and only a caller that allows private addresses is answered with it.
- Entries older than `max_age_s`, or dated in the future, count as missing and are deleted when
  the cache is opened; `clear` empties it.
- A cache bound to a run (`for_run`) records which runs used each page; `forget_runs` (when runs
  are deleted) removes the pages that only those runs used.
Within one process, a URL being fetched by one branch is not fetched again by another at the same
time (`claim`/`release`).
"""

from __future__ import annotations

import contextlib
import copy
import sqlite3
import threading
import time
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel

from research_core.db import connect
from research_core.schemas import utc_now

PAGE_CACHE_MAX_AGE_S = 7 * 24 * 3600
TRANSIENT_TTL_S = 600.0
# A clock may be a little ahead of the one that dated an entry; further ahead is a wrong date.
CLOCK_SKEW_S = 300

_SCHEMA = (
    """
CREATE TABLE IF NOT EXISTS page_cache (
    url TEXT PRIMARY KEY,
    ok INTEGER NOT NULL,
    final_url TEXT NOT NULL DEFAULT '',
    title TEXT NOT NULL DEFAULT '',
    text TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT '',
    reason TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    fetched_at TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 1
)
""",
    "CREATE TABLE IF NOT EXISTS page_cache_runs (url TEXT NOT NULL, run_id TEXT NOT NULL, PRIMARY KEY (url, run_id))",
    "CREATE INDEX IF NOT EXISTS page_cache_runs_by_run ON page_cache_runs (run_id)",
)
# Entries written before the address rule was recorded are treated as private: unknown origin.
_ADD_PRIVATE = "ALTER TABLE page_cache ADD COLUMN private INTEGER NOT NULL DEFAULT 1"
_COLUMNS = ("url", "ok", "final_url", "title", "text", "kind", "reason", "note", "fetched_at", "private")


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
    private: bool = False  # served from a non-public address: only for callers that allow those


class PageCache:
    """Pages by URL in the SQLite file `db_path` (tables `page_cache`, `page_cache_runs`); in memory when None.

    Thread-safe: every operation opens its own connection (WAL mode, busy timeout).
    """

    def __init__(self, db_path: Path | str | None, max_age_s: float = PAGE_CACHE_MAX_AGE_S):
        self.db_path = Path(db_path) if db_path is not None else None
        self.max_age_s = max_age_s
        self.run_id: str | None = None
        self._memory: dict[str, CachedPage] = {}
        self._transient: dict[str, tuple[CachedPage, float]] = {}
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        if self.db_path is not None:
            self._execute(*_SCHEMA)
            self._add_private_column()
            self.purge_stale()

    def for_run(self, run_id: str) -> PageCache:
        """The same cache, recording that run `run_id` uses each page it reads or stores."""
        bound = copy.copy(self)
        bound.run_id = run_id
        return bound

    # ---- reading and writing --------------------------------------------------------------------

    def fresh(self, fetched_at: str) -> bool:
        """Whether an entry dated `fetched_at` is recent enough: not older than `max_age_s`, not in the future."""
        try:
            fetched = datetime.fromisoformat(fetched_at)
        except ValueError:
            return False
        if fetched.tzinfo is None:
            fetched = fetched.replace(tzinfo=UTC)
        age = datetime.now(UTC) - fetched
        return timedelta(seconds=-CLOCK_SKEW_S) <= age <= timedelta(seconds=self.max_age_s)

    def get(self, url: str, allow_private: bool = False) -> CachedPage | None:
        """The cached page for `url`, or None if missing, too old, or private and `allow_private` is off."""
        page = self._transient_hit(url) or self._stored(url)
        if page is None or not self.fresh(page.fetched_at) or (page.private and not allow_private):
            return None
        self._record_use([url])
        return page

    def put(self, page: CachedPage) -> None:
        """Store (or replace) a page; its `fetched_at` is now unless set."""
        page = page if page.fetched_at else page.model_copy(update={"fetched_at": utc_now()})
        with self._lock:
            self._transient.pop(page.url, None)
        if self.db_path is None:
            with self._lock:
                self._memory[page.url] = page
            return
        values = page.model_dump()
        values["ok"], values["private"] = int(page.ok), int(page.private)
        placeholders = ", ".join("?" for _ in _COLUMNS)
        sql = f"INSERT OR REPLACE INTO page_cache ({', '.join(_COLUMNS)}) VALUES ({placeholders})"
        self._execute((sql, [values[c] for c in _COLUMNS]))
        self._record_use([page.url])

    def put_transient(self, page: CachedPage) -> None:
        """Remember a failure that may pass (a timeout, a 5xx) in this process for `TRANSIENT_TTL_S`."""
        page = page if page.fetched_at else page.model_copy(update={"fetched_at": utc_now()})
        with self._lock:
            self._transient[page.url] = (page, time.monotonic() + TRANSIENT_TTL_S)

    def _transient_hit(self, url: str) -> CachedPage | None:
        with self._lock:
            found = self._transient.get(url)
            if found is not None and found[1] < time.monotonic():
                del self._transient[url]
                return None
            return found[0] if found else None

    def _stored(self, url: str) -> CachedPage | None:
        if self.db_path is None:
            with self._lock:
                return self._memory.get(url)
        conn = connect(self.db_path)
        try:
            row = conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM page_cache WHERE url = ?", [url]).fetchone()
        except sqlite3.Error:
            row = None
        finally:
            conn.close()
        return CachedPage(**dict(zip(_COLUMNS, row, strict=True))) if row else None

    # ---- housekeeping ---------------------------------------------------------------------------

    def purge_stale(self) -> int:
        """Delete the entries that are too old or dated in the future; how many went."""
        if self.db_path is None:
            with self._lock:
                stale = [url for url, page in self._memory.items() if not self.fresh(page.fetched_at)]
                for url in stale:
                    del self._memory[url]
            return len(stale)
        rows = self._query("SELECT url, fetched_at FROM page_cache")
        stale = [(url,) for url, fetched_at in rows if not self.fresh(fetched_at)]
        self._execute_many("DELETE FROM page_cache WHERE url = ?", stale)
        self._execute_many("DELETE FROM page_cache_runs WHERE url = ?", stale)
        return len(stale)

    def forget_runs(self, run_ids: Iterable[str]) -> int:
        """Forget that these runs used their pages, and delete the pages no other run used; how many went."""
        ids = [(run_id,) for run_id in run_ids]
        if self.db_path is None or not ids:
            return 0
        marks = ", ".join("?" for _ in ids)
        flat = [run_id for (run_id,) in ids]
        used = self._query(f"SELECT DISTINCT url FROM page_cache_runs WHERE run_id IN ({marks})", flat)
        self._execute((f"DELETE FROM page_cache_runs WHERE run_id IN ({marks})", flat))
        orphans = [(url,) for (url,) in used if not self._query("SELECT 1 FROM page_cache_runs WHERE url = ?", [url])]
        self._execute_many("DELETE FROM page_cache WHERE url = ?", orphans)
        return len(orphans)

    def clear(self) -> int:
        """Empty the cache (stored and in memory); how many stored pages went."""
        with self._lock:
            count = len(self._memory)
            self._memory.clear()
            self._transient.clear()
        if self.db_path is None:
            return count
        count = self.count()
        self._execute("DELETE FROM page_cache", "DELETE FROM page_cache_runs")
        return count

    def count(self) -> int:
        """How many pages are stored (fresh or not)."""
        if self.db_path is None:
            with self._lock:
                return len(self._memory)
        return int(self._query("SELECT count(*) FROM page_cache")[0][0])

    # ---- claims ---------------------------------------------------------------------------------

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

    # ---- the database ---------------------------------------------------------------------------

    def _record_use(self, urls: list[str]) -> None:
        if self.db_path is not None and self.run_id is not None:
            sql = "INSERT OR IGNORE INTO page_cache_runs (url, run_id) VALUES (?, ?)"
            self._execute_many(sql, [(url, self.run_id) for url in urls])

    def _add_private_column(self) -> None:
        columns = {row[1] for row in self._query("PRAGMA table_info(page_cache)")}
        if "private" not in columns:
            with contextlib.suppress(sqlite3.OperationalError):  # another process added it first
                self._execute(_ADD_PRIVATE)

    def _query(self, sql: str, params: list | None = None) -> list[tuple]:
        assert self.db_path is not None
        conn = connect(self.db_path)
        try:
            return conn.execute(sql, params or []).fetchall()
        finally:
            conn.close()

    def _execute(self, *statements: str | tuple[str, list]) -> None:
        assert self.db_path is not None
        conn = connect(self.db_path)
        try:
            with conn:
                for statement in statements:
                    sql, params = statement if isinstance(statement, tuple) else (statement, [])
                    conn.execute(sql, params)
        finally:
            conn.close()

    def _execute_many(self, sql: str, rows: list[tuple]) -> None:
        if self.db_path is None or not rows:
            return
        conn = connect(self.db_path)
        try:
            with conn:
                conn.executemany(sql, rows)
        finally:
            conn.close()
