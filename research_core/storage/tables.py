"""A store over tables of one database: the engine its tables were opened on, and one transaction
at a time in this process."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Connection

from research_core.storage.engines import release
from research_core.storage.location import StoreLocation, locate
from research_core.storage.schema import open_tables


class TableStore:
    """The tables `create` makes (or brings up to date) in the database `db` (a SQLite path, a
    PostgreSQL URL or a `StoreLocation`; None: the environment's). A database that cannot be
    opened raises `StorageError`."""

    def __init__(self, db: StoreLocation | Path | str | None, create: Callable[[Connection], None]):
        self.location = locate(db)
        self._lock = threading.Lock()
        self._engine = open_tables(self.location, create)

    def close(self) -> None:
        """Let go of the database (a shared PostgreSQL pool stays open for the process's other stores)."""
        release(self.location, self._engine)

    @contextmanager
    def _transaction(self, *, immediate: bool = False) -> Iterator[Connection]:
        """A transaction, committed on exit, with this store's lock held; `immediate` takes SQLite's
        write lock at its start, so that what it reads stays true until it commits."""
        with self._lock, self._engine.connect() as conn:
            if immediate:
                conn = conn.execution_options(immediate=True)
            with conn.begin():
                yield conn
