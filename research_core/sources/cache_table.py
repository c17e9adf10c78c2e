"""The page cache's tables, defined once for both engines (SQLAlchemy Core).

On SQLite they are the tables older Arbors made (same names, types and defaults), so their
databases open unchanged; an older `page_cache` without `private` gains it, its rows counting as
private (unknown origin).
"""

from __future__ import annotations

from sqlalchemy import Column, Connection, Index, Integer, MetaData, Table, Text, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

from research_core.storage.schema import add_missing_columns

metadata = MetaData()
EMPTY = text("''")

pages = Table(
    "page_cache",
    metadata,
    Column("url", Text, primary_key=True),
    Column("ok", Integer, nullable=False),
    Column("final_url", Text, nullable=False, server_default=EMPTY),
    Column("title", Text, nullable=False, server_default=EMPTY),
    Column("text", Text, nullable=False, server_default=EMPTY),
    Column("kind", Text, nullable=False, server_default=EMPTY),
    Column("reason", Text, nullable=False, server_default=EMPTY),
    Column("note", Text, nullable=False, server_default=EMPTY),
    Column("fetched_at", Text, nullable=False),
    Column("private", Integer, nullable=False, server_default=text("1")),
)
page_runs = Table(
    "page_cache_runs",
    metadata,
    Column("url", Text, primary_key=True),
    Column("run_id", Text, primary_key=True),
)
Index("page_cache_runs_by_run", page_runs.c.run_id)

COLUMNS = tuple(c.name for c in pages.columns)
DIALECT_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def create_or_upgrade(conn: Connection) -> None:
    """Create the tables, or add to an older `page_cache` the columns it lacks.

    Run it inside `storage.schema.schema_change`, so two processes never do it at once.
    """
    metadata.create_all(conn, checkfirst=True)
    add_missing_columns(conn, pages)


def upsert(conn: Connection, table: Table, rows: list[dict], *, replace: bool) -> None:
    """Insert rows; one whose key is there already replaces it (`replace`) or is left as it is."""
    if not rows:
        return
    statement: Insert = DIALECT_INSERTS[conn.dialect.name](table)
    keys = [c.name for c in table.primary_key.columns]
    if replace:
        updated = {c.name: statement.excluded[c.name] for c in table.columns if c.name not in keys}
        statement = statement.on_conflict_do_update(index_elements=keys, set_=updated)
    else:
        statement = statement.on_conflict_do_nothing(index_elements=keys)
    conn.execute(statement, rows)
