"""Creating or upgrading tables, one process at a time on either engine.

Two processes opening a new database at once would both try to create its tables. A schema change
therefore runs in a transaction that first takes the database's schema lock: `BEGIN IMMEDIATE` on
SQLite (its write lock), a transaction-scoped advisory lock on PostgreSQL. The second process waits,
then finds the tables made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, Table, func, inspect, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.schema import CreateColumn

from research_core.storage.engines import engine_for, release, unreachable
from research_core.storage.location import StoreLocation

# An arbitrary, fixed key of PostgreSQL's advisory locks: Arbor's schema changes.
SCHEMA_LOCK_KEY = 0x41_52_42_4F_52  # "ARBOR"


@contextmanager
def schema_change(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction holding the schema lock; committed on exit, rolled back on error."""
    with engine.connect() as conn:
        conn = conn.execution_options(immediate=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(select(func.pg_advisory_xact_lock(SCHEMA_LOCK_KEY)))
            yield conn


def open_tables(location: StoreLocation, create: Callable[[Connection], None]) -> Engine:
    """The single-connection engine of `location` with `create` run once in a schema change; a
    database that cannot be opened lets go of the engine and raises StorageError."""
    engine = engine_for(location, single=True)
    try:
        with schema_change(engine) as conn:
            create(conn)
    except OperationalError as exc:
        release(location, engine)
        raise unreachable(location, exc) from None
    return engine


def add_missing_columns(conn: Connection, table: Table) -> list[str]:
    """Add to an existing table the columns of its definition it lacks (with their defaults); their names."""
    existing = {c["name"] for c in inspect(conn).get_columns(table.name)}
    added = []
    for column in table.columns:
        if column.name not in existing:
            ddl = CreateColumn(column).compile(dialect=conn.dialect)
            conn.exec_driver_sql(f"ALTER TABLE {table.name} ADD COLUMN {ddl}")
            added.append(column.name)
    return added
