"""The page cache: each page's extracted text, or why it could not be read, by URL in the run database.

The run database is the SQLite file or PostgreSQL (`research_core.storage`); the tables are
defined once for both (`sources.cache_table`).

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

import copy
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel
from sqlalchemy import Connection, delete, func, select
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from research_core.schemas import utc_now
from research_core.sources.cache_table import COLUMNS, create_or_upgrade, page_runs, pages, upsert
from research_core.storage.engines import engine_for, unreachable
from research_core.storage.location import StoreLocation, locate
from research_core.storage.schema import schema_change

PAGE_CACHE_MAX_AGE_S = 7 * 24 * 3600
TRANSIENT_TTL_S = 600.0
# A clock may be a little ahead of the one that dated an entry; further ahead is a wrong date.
CLOCK_SKEW_S = 300


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
    """Pages by URL in the database `db_path` (tables `page_cache`, `page_cache_runs`); in memory when None.

    `db_path` is a SQLite path, a PostgreSQL URL or a `StoreLocation`. Thread-safe: every operation
    takes its own connection (on SQLite a new one, WAL mode, busy timeout; on PostgreSQL one from
    the process's pool).
    """

    def __init__(self, db_path: StoreLocation | Path | str | None, max_age_s: float = PAGE_CACHE_MAX_AGE_S):
        self.location = locate(db_path) if db_path is not None else None
        self.db_path = self.location.path if self.location is not None else None
        self.max_age_s = max_age_s
        self.run_id: str | None = None
        self._memory: dict[str, CachedPage] = {}
        self._transient: dict[str, tuple[CachedPage, float]] = {}
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._engine = engine_for(self.location) if self.location is not None else None
        if self._engine is not None:
            try:
                with schema_change(self._engine) as conn:
                    create_or_upgrade(conn)
            except OperationalError as exc:
                raise unreachable(self.location, exc) from None
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
        if self._engine is None:
            with self._lock:
                self._memory[page.url] = page
            return
        values = page.model_dump()
        values["ok"], values["private"] = int(page.ok), int(page.private)
        with self._transaction() as conn:
            upsert(conn, pages, [{c: values[c] for c in COLUMNS}], replace=True)
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
        if self._engine is None:
            with self._lock:
                return self._memory.get(url)
        try:
            with self._transaction() as conn:
                row = conn.execute(select(pages).where(pages.c.url == url)).mappings().first()
        except SQLAlchemyError:
            row = None
        return CachedPage(**row) if row else None

    # ---- housekeeping ---------------------------------------------------------------------------

    def purge_stale(self) -> int:
        """Delete the entries that are too old or dated in the future; how many went."""
        if self._engine is None:
            with self._lock:
                stale = [url for url, page in self._memory.items() if not self.fresh(page.fetched_at)]
                for url in stale:
                    del self._memory[url]
            return len(stale)
        with self._transaction() as conn:
            rows = conn.execute(select(pages.c.url, pages.c.fetched_at)).all()
            stale = [url for url, fetched_at in rows if not self.fresh(fetched_at)]
            if stale:
                conn.execute(delete(pages).where(pages.c.url.in_(stale)))
                conn.execute(delete(page_runs).where(page_runs.c.url.in_(stale)))
        return len(stale)

    def forget_runs(self, run_ids: Iterable[str]) -> int:
        """Forget that these runs used their pages, and delete the pages no other run used; how many went."""
        ids = list(run_ids)
        if self._engine is None or not ids:
            return 0
        with self._transaction() as conn:
            used = conn.execute(select(page_runs.c.url).where(page_runs.c.run_id.in_(ids)).distinct()).scalars().all()
            conn.execute(delete(page_runs).where(page_runs.c.run_id.in_(ids)))
            still_used = select(page_runs.c.url).where(page_runs.c.url.in_(used))
            orphans = set(used) - set(conn.execute(still_used).scalars().all())
            if orphans:
                conn.execute(delete(pages).where(pages.c.url.in_(orphans)))
        return len(orphans)

    def clear(self) -> int:
        """Empty the cache (stored and in memory); how many stored pages went."""
        with self._lock:
            count = len(self._memory)
            self._memory.clear()
            self._transient.clear()
        if self._engine is None:
            return count
        count = self.count()
        with self._transaction() as conn:
            conn.execute(delete(pages))
            conn.execute(delete(page_runs))
        return count

    def count(self) -> int:
        """How many pages are stored (fresh or not)."""
        if self._engine is None:
            with self._lock:
                return len(self._memory)
        with self._transaction() as conn:
            return int(conn.execute(select(func.count()).select_from(pages)).scalar() or 0)

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
        if self._engine is not None and self.run_id is not None:
            with self._transaction() as conn:
                upsert(conn, page_runs, [{"url": url, "run_id": self.run_id} for url in urls], replace=False)

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        assert self._engine is not None
        with self._engine.begin() as conn:
            yield conn
