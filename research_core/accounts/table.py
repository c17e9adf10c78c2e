"""The accounts' tables, defined once for both engines (SQLAlchemy Core), in the database the runs use.

`users`: one row per account (name, role, the password's Argon2 hash or NULL for an account that
signs in through the OIDC provider only). `api_keys`: the LLM API key an admin saved on the server,
by the name of its endpoint kind ("openai"). Both are created, or brought up to this definition,
under the database's schema lock (`storage.schema.schema_change`), as the runs table is.
"""

from __future__ import annotations

from sqlalchemy import Column, Connection, MetaData, Table, Text

from research_core.storage.schema import add_missing_columns

metadata = MetaData()

users = Table(
    "users",
    metadata,
    Column("name", Text, primary_key=True),
    Column("role", Text, nullable=False),
    Column("password_hash", Text),
    Column("created_at", Text),
    Column("updated_at", Text),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("name", Text, primary_key=True),
    Column("secret", Text, nullable=False),
    Column("updated_at", Text),
    Column("updated_by", Text),
)


def create_or_upgrade(conn: Connection) -> None:
    """Create the accounts' tables, or add the columns an older definition lacks (inside `schema_change`)."""
    metadata.create_all(conn, checkfirst=True)
    for table in (users, api_keys):
        add_missing_columns(conn, table)
