"""LangGraph's checkpoints on PostgreSQL: one PostgresSaver per database in a process, on a connection pool.

The pool's connections are made the way PostgresSaver needs them (autocommit, no prepared
statements, dict rows) and keep TCP keepalives on, so a connection a network dropped is noticed
and replaced; each is checked before use. The checkpoint tables are set up once per database and
process (`setup()` runs PostgresSaver's own migrations, one process at a time: `set_up`). The
saver uses the serializer it is given (`db.checkpoint_serializer`, the same restricted one as on
SQLite).
"""

from __future__ import annotations

import threading
import time

from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from psycopg import OperationalError
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from research_core.storage.engines import CONNECT_TIMEOUT_S, KEEPALIVES, unreachable
from research_core.storage.location import StoreLocation, locate
from research_core.storage.schema import SCHEMA_LOCK_KEY

SETUP_LOCK_KEY = SCHEMA_LOCK_KEY + 1  # the checkpointer's migrations
SETUP_POLL_S = 0.1

POOL_MAX_SIZE = 10
_savers: dict[str, PostgresSaver] = {}
_lock = threading.Lock()


def open_pool(location: StoreLocation) -> ConnectionPool:
    """A pool of connections to the database as PostgresSaver needs them, opened and checked once."""
    pool = ConnectionPool(
        location.conninfo(),
        min_size=1,
        max_size=POOL_MAX_SIZE,
        kwargs=dict(
            autocommit=True, prepare_threshold=0, row_factory=dict_row, connect_timeout=CONNECT_TIMEOUT_S, **KEEPALIVES
        ),
        check=ConnectionPool.check_connection,
        open=False,
        name="arbor-checkpoints",
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except (PoolTimeout, OperationalError) as exc:
        pool.close()
        raise unreachable(location, exc) from None
    return pool


def postgres_checkpointer(location: StoreLocation, serde: SerializerProtocol) -> PostgresSaver:
    """The process's PostgresSaver on this database, its tables set up on first use."""
    key = location.conninfo()
    with _lock:
        saver = _savers.get(key)
        if saver is None:
            saver = PostgresSaver(open_pool(location), serde=serde)
            set_up(saver)
            _savers[key] = saver
        return saver


def set_up(saver: PostgresSaver) -> None:
    """Run PostgresSaver's migrations, one process at a time.

    The migrations create indexes CONCURRENTLY, which wait for every older transaction in the
    database to end: a process waiting for the lock inside a statement would be one of those,
    and wait for the lock's holder in turn. So the lock is tried, not awaited, and the wait
    between tries is spent outside any statement. Its key is not the schema lock's, which
    transactions hold.
    """
    assert isinstance(saver.conn, ConnectionPool)
    with saver.conn.connection() as conn:
        while not conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (SETUP_LOCK_KEY,)).fetchone()["locked"]:
            time.sleep(SETUP_POLL_S)
        try:
            saver.setup()
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK_KEY,))


def close_checkpointer(url: str) -> None:
    """Close the pool of the checkpointer on the database `url`, if any (tests, before a database goes)."""
    with _lock:
        saver = _savers.pop(locate(url).conninfo(), None)
    if saver is not None and isinstance(saver.conn, ConnectionPool):
        saver.conn.close()
