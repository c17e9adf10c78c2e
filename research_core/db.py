"""The SQLite file of an installation, how every part opens it, and the checkpointer on either engine.

WAL mode lets the UI read while a run writes; every connection waits on a busy database
instead of failing, so a CLI run and the app can share the file. The run records
(`research_core.runs.store`), the LangGraph checkpoints, the document library and the page cache
all live in it. With a PostgreSQL URL (`research_core.storage.location`) the run records, the
checkpoints and the page cache live in that database instead.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from research_core.state import CHECKPOINTED_RECORDS
from research_core.storage.location import DEFAULT_DB, PATH_VARIABLE

BUSY_TIMEOUT_MS = 30_000


def default_db_path() -> Path:
    """`$ARBOR_DB` if set, else ./data/arbor.db: the SQLite file (`ARBOR_DATABASE_URL` names PostgreSQL instead)."""
    return Path(os.environ.get(PATH_VARIABLE, DEFAULT_DB))


def connect(db_path: Path | str) -> sqlite3.Connection:
    """Open the database (creating its folder) in WAL mode, usable from several threads."""
    path = Path(db_path)
    if str(path) != ":memory:":
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def checkpoint_serializer() -> JsonPlusSerializer:
    """The checkpoints' serializer, allowed to rebuild exactly the records a run's state holds."""
    return JsonPlusSerializer(allowed_msgpack_modules=[(c.__module__, c.__name__) for c in CHECKPOINTED_RECORDS])


@contextmanager
def open_checkpointer(db: Any) -> Iterator[BaseCheckpointSaver]:
    """The checkpointer of the database `db` (a path, a URL or a `StoreLocation`), closed on exit.

    A SqliteSaver on its own connection to the SQLite file, or a PostgresSaver on the process's
    pool for a PostgreSQL database (`storage.checkpoints`). Its serializer rebuilds the run's
    records (`state.CHECKPOINTED_RECORDS`) and no other class.
    """
    from research_core.storage.location import locate

    location = locate(db)
    if location.is_postgres:
        from research_core.storage.checkpoints import postgres_checkpointer

        yield postgres_checkpointer(location, checkpoint_serializer())
        return
    conn = connect(location.path)
    try:
        saver = SqliteSaver(conn, serde=checkpoint_serializer())
        saver.setup()
        yield saver
    finally:
        conn.close()
