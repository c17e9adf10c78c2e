"""The document library's tables, defined once for both engines (SQLAlchemy Core).

On SQLite they are the tables older Arbors made with sqlite-utils (same names, types and index
names), so their libraries open unchanged. Each engine indexes the passages its own way: FTS5
on SQLite (`library_fts`), a generated `tsvector` with a GIN index on PostgreSQL
(`library_postgres`).
"""

from __future__ import annotations

from sqlalchemy import Column, Connection, Index, Integer, MetaData, Table, Text

from research_core.storage.schema import add_missing_columns

metadata = MetaData()

documents = Table(
    "library_documents",
    metadata,
    Column("id", Text, primary_key=True),
    Column("key", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("path", Text),
    Column("url", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("chars", Integer, nullable=False),
    Column("chunks", Integer, nullable=False),
    Column("added_at", Text, nullable=False),
    Column("note", Text),
)
Index("idx_library_documents_key", documents.c.key, unique=True)

chunks = Table(
    "library_chunks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("doc_id", Text, nullable=False),
    Column("ord", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("place", Text),
)
Index("idx_library_chunks_doc_id_ord", chunks.c.doc_id, chunks.c.ord)


def create_or_upgrade(conn: Connection) -> None:
    """Create the tables, or add to older ones the columns they lack (NULL in old rows).

    Run it inside `storage.schema.schema_change`, so two processes never do it at once; the
    engine's search index (`library_fts`, `library_postgres`) is made after.
    """
    metadata.create_all(conn, checkfirst=True)
    add_missing_columns(conn, documents)
    add_missing_columns(conn, chunks)
