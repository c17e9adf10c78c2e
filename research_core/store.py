"""One SQLite file per installation: run records (sqlite-utils) and LangGraph checkpoints.

WAL mode lets the UI read while a run writes; every connection waits on a busy database
instead of failing, so a CLI run and the app can share the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from langgraph.checkpoint.sqlite import SqliteSaver

from research_core.schemas import utc_now

DEFAULT_DB = Path("data") / "arbor.db"
BUSY_TIMEOUT_MS = 30_000


class RunOwnedElsewhere(Exception):
    """A live process other than this one drives the run; `pid` names it."""

    def __init__(self, pid: int):
        super().__init__(f"run driven by process {pid}")
        self.pid = pid


def default_db_path() -> Path:
    """`$ARBOR_DB` if set, else ./data/arbor.db."""
    return Path(os.environ.get("ARBOR_DB", DEFAULT_DB))


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


@contextmanager
def open_checkpointer(db_path: Path | str) -> Iterator[SqliteSaver]:
    """A SqliteSaver on its own connection to the database, closed on exit."""
    conn = connect(db_path)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        yield saver
    finally:
        conn.close()


RUN_COLUMNS = {
    "id": str,
    "question": str,
    "mode": str,
    "status": str,
    "template": str,
    "created_at": str,
    "updated_at": str,
    "config_json": str,
    "plan_json": str,
    "totals_json": str,
    "result_json": str,
    "error": str,
    "parent_run_id": str,
    "owner_pid": int,
    "owner_token": str,
    "llm_json": str,
    "active_s": float,
}


class RunStore:
    """The runs table: what History and Compare need without replaying a graph."""

    def __init__(self, db_path: Path | str):
        self.db_path = Path(db_path)
        self._lock = threading.Lock()
        self._conn = connect(self.db_path)
        self._db = sqlite_utils.Database(self._conn)
        with self._lock:
            table = self._db["runs"]
            if not table.exists():
                table.create(RUN_COLUMNS, pk="id")
                table.create_index(["created_at"])
            else:
                self._add_missing_columns()

    def _add_missing_columns(self) -> None:
        """Bring a database written by an older Arbor up to RUN_COLUMNS (old rows get NULL)."""
        existing = set(self._db["runs"].columns_dict)
        for name, kind in RUN_COLUMNS.items():
            if name in existing:
                continue
            try:
                self._db["runs"].add_column(name, kind)
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc).lower():
                    raise

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def create(
        self,
        run_id: str,
        question: str,
        config: dict[str, Any],
        parent_run_id: str | None = None,
        llm: dict[str, Any] | None = None,
    ) -> None:
        """Record a new run; `llm` holds the LLM settings it runs with (never an API key)."""
        now = utc_now()
        with self._lock, self._conn:
            self._db["runs"].insert(
                {
                    "id": run_id,
                    "question": question,
                    "mode": config.get("mode", "auto"),
                    "status": "created",
                    "template": config.get("template", ""),
                    "created_at": now,
                    "updated_at": now,
                    "config_json": json.dumps(config),
                    "parent_run_id": parent_run_id,
                    "llm_json": json.dumps(llm) if llm is not None else None,
                    "active_s": 0.0,
                }
            )

    def update(self, run_id: str, **fields: Any) -> None:
        """Update some columns of a run; dict values are stored as JSON."""
        values = {k: (json.dumps(v) if isinstance(v, dict | list) else v) for k, v in fields.items()}
        values["updated_at"] = utc_now()
        with self._lock, self._conn:
            self._db["runs"].update(run_id, values)

    def claim(
        self, run_id: str, owner_pid: int, owner_token: str, owner_alive: Callable[[int | None, str | None], bool]
    ) -> int | None:
        """Mark the run as being driven by this owner, atomically across processes.

        Returns the pid of another live owner already driving it (nothing is changed then), or
        None once the run is claimed. The check and the write share one IMMEDIATE transaction,
        so two processes can never both claim a run.
        """
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                row = self._conn.execute(
                    "select status, owner_pid, owner_token from runs where id = ?", [run_id]
                ).fetchone()
                if (
                    row is not None
                    and row[0] == "running"
                    and (row[1], row[2]) != (owner_pid, owner_token)
                    and owner_alive(row[1], row[2])
                ):
                    self._conn.execute("ROLLBACK")
                    return int(row[1])
                self._conn.execute(
                    "update runs set status = 'running', error = null, owner_pid = ?, owner_token = ?, "
                    "updated_at = ? where id = ?",
                    [owner_pid, owner_token, utc_now(), run_id],
                )
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        return None

    def add_active_seconds(self, run_id: str, seconds: float) -> float:
        """Add one drive's duration to the run's research time; returns the new total."""
        with self._lock, self._conn:
            self._conn.execute(
                "update runs set active_s = coalesce(active_s, 0) + ?, updated_at = ? where id = ?",
                [max(0.0, float(seconds)), utc_now(), run_id],
            )
            row = self._conn.execute("select active_s from runs where id = ?", [run_id]).fetchone()
        return float(row[0] or 0.0) if row else 0.0

    def get(self, run_id: str) -> dict[str, Any] | None:
        """The run record, or None."""
        with self._lock:
            try:
                return dict(self._db["runs"].get(run_id))
            except sqlite_utils.db.NotFoundError:
                return None

    def list(self, limit: int = 500) -> list[dict[str, Any]]:
        """Runs, newest first (without the bulky result JSON)."""
        cols = (
            "id, question, mode, status, template, created_at, updated_at, totals_json, error, parent_run_id, "
            "owner_pid, owner_token"
        )
        with self._lock:
            rows = self._db.query(f"select {cols} from runs order by created_at desc, rowid desc limit ?", [limit])
            return [dict(r) for r in rows]

    def delete(self, run_id: str, owner_alive: Callable[[int | None, str | None], bool] | None = None) -> bool:
        """Delete a run record with its checkpoints and writes, in one transaction. True if it existed.

        With `owner_alive`, a run marked running by a live owner is not touched: `RunOwnedElsewhere`
        is raised. The check and the deletion share one IMMEDIATE transaction, like `claim`.
        """
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                row = self._conn.execute(
                    "select status, owner_pid, owner_token from runs where id = ?", [run_id]
                ).fetchone()
                if row is not None and owner_alive is not None and row[0] == "running" and owner_alive(row[1], row[2]):
                    raise RunOwnedElsewhere(int(row[1]))
                self._conn.execute("delete from runs where id = ?", [run_id])
                for table in ("checkpoints", "writes"):
                    exists = self._conn.execute(
                        "select 1 from sqlite_master where type='table' and name=?", [table]
                    ).fetchone()
                    if exists:
                        self._conn.execute(f"delete from {table} where thread_id = ?", [run_id])
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
        return row is not None
