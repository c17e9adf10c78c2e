"""SQLAlchemy engines on either database, with each engine's connection rules set where connections are made.

- SQLite: every connection comes from `research_core.db.connect` (WAL, busy timeout, several
  threads), and SQLAlchemy, not the sqlite3 module, begins transactions; a connection run with
  execution option `immediate=True` begins with `BEGIN IMMEDIATE`, taking the write lock before it
  reads, so a check and the write that depends on it cannot interleave with another process.
  `single=True` keeps one connection for the engine's owner (the run store's way); otherwise each
  checkout opens its own (the page cache's way: any thread, any time).
- PostgreSQL: one pooled engine per database URL in a process, shared by every store on it; TCP
  keepalives and a check before each checkout replace connections a network or server dropped.
A database that cannot be reached is a `StorageError` naming it, password masked.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.pool import NullPool, StaticPool

from research_core.db import connect
from research_core.storage.location import StorageError, StoreLocation

# libpq's keepalive settings: a dead peer is noticed within about a minute, not after hours.
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}
CONNECT_TIMEOUT_S = 10
POOL_SIZE = 5

_shared: dict[str, Engine] = {}
_shared_lock = threading.Lock()


def sqlite_engine(location: StoreLocation, *, single: bool) -> Engine:
    """An engine on the SQLite file; the caller disposes of it."""
    assert location.path is not None
    path = location.path
    pool = StaticPool if single else NullPool
    engine = create_engine("sqlite://", creator=lambda: connect(path), poolclass=pool)

    @event.listens_for(engine, "connect")
    def _autocommit_driver(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's BEGIN below, not the driver's

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("immediate") else "BEGIN")

    return engine


def postgres_engine(location: StoreLocation) -> Engine:
    """The process's pooled engine on this PostgreSQL database (made on first use, then shared)."""
    key = location.conninfo()
    with _shared_lock:
        engine = _shared.get(key)
        if engine is None:
            engine = create_engine(
                location.sqlalchemy_url(),
                pool_size=POOL_SIZE,
                pool_pre_ping=True,
                connect_args={**KEEPALIVES, "connect_timeout": CONNECT_TIMEOUT_S},
            )
            _shared[key] = engine
        return engine


def engine_for(location: StoreLocation, *, single: bool = False) -> Engine:
    """An engine on `location`: a new SQLite one (the caller disposes of it), or the shared PostgreSQL one."""
    return postgres_engine(location) if location.is_postgres else sqlite_engine(location, single=single)


def release(location: StoreLocation, engine: Engine) -> None:
    """What an owner does with its engine when done: dispose of a SQLite one; a shared one stays open."""
    if not location.is_postgres:
        engine.dispose()


def dispose_engine(url: str) -> None:
    """Close the shared engine on the PostgreSQL database `url`, if any (tests, before a database goes)."""
    from research_core.storage.location import locate

    with _shared_lock:
        engine = _shared.pop(locate(url).conninfo(), None)
    if engine is not None:
        engine.dispose()


def unreachable(location: StoreLocation, exc: Exception) -> StorageError:
    """The one-line error for a database that cannot be opened, its password masked."""
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if location.url is not None and location.url.password:
        reason = reason.replace(str(location.url.password), "***")
    return StorageError(
        f"cannot open the database {location.shown}: {reason}. "
        "Check the URL (--db or ARBOR_DATABASE_URL) and that the server is running."
    )
