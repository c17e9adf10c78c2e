"""The runs table: one record per run, read back as typed records (`research_core.runs.records`).

It lives in the installation's one SQLite file (`research_core.db`) next to the checkpoints. A
record carries what History, Compare and the CLI need without replaying a graph; a run's
ownership (which process drives it) is claimed and released here in one transaction each, so two
processes never drive or delete the same run at once.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import ValidationError

from research_core.db import connect
from research_core.runs.records import RunRecord, RunResult, RunSummary, RunTotals
from research_core.runs.rows import STORED
from research_core.schemas import utc_now

logger = logging.getLogger(__name__)


class RunOwnedElsewhere(Exception):
    """A live process other than this one drives the run; `pid` names it."""

    def __init__(self, pid: int):
        super().__init__(f"run driven by process {pid}")
        self.pid = pid


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


# The columns of a run summary (History, `runs`) and of a whole record (everything but the result).
SUMMARY_COLUMNS = (
    "id",
    "question",
    "mode",
    "status",
    "template",
    "created_at",
    "updated_at",
    "totals_json",
    "error",
    "parent_run_id",
    "owner_pid",
    "owner_token",
)
RECORD_COLUMNS = (
    *SUMMARY_COLUMNS,
    "config_json",
    "plan_json",
    "llm_json",
    "active_s",
    "result_json is not null as has_result",
)


def read_totals(run_id: str, raw: str | None) -> RunTotals | None:
    """A run's stored totals; None when it has none yet or they cannot be read (logged)."""
    if not raw:
        return None
    try:
        return RunTotals.model_validate_json(raw)
    except ValidationError:
        logger.warning("run %s: unreadable stored totals; ignoring them", run_id)
        return None


def read_llm_settings(run_id: str, raw: str | None) -> dict[str, Any] | None:
    """The LLM settings a run was stored with; None for runs recorded without them or unreadable ones."""
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        logger.warning("run %s: unreadable stored LLM settings; ignoring them", run_id)
        return None
    return data if isinstance(data, dict) else None


def summary_from_row(row: sqlite3.Row) -> RunSummary:
    """A RunSummary from a row of the runs table (SUMMARY_COLUMNS)."""
    return RunSummary(
        id=row["id"],
        question=row["question"],
        mode=row["mode"],
        status=row["status"],
        template=row["template"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        totals=read_totals(row["id"], row["totals_json"]),
        error=row["error"],
        parent_run_id=row["parent_run_id"],
        owner_pid=row["owner_pid"],
        owner_token=row["owner_token"],
    )


def record_from_row(row: sqlite3.Row) -> RunRecord:
    """A RunRecord from a row of the runs table (RECORD_COLUMNS); the config and plan are JSON it wrote."""
    summary = summary_from_row(row)
    return RunRecord(
        **{field.name: getattr(summary, field.name) for field in dataclasses.fields(RunSummary)},
        config=json.loads(row["config_json"]),
        plan=json.loads(row["plan_json"]) if row["plan_json"] else None,
        llm=read_llm_settings(row["id"], row["llm_json"]),
        active_s=float(row["active_s"] or 0.0),
        has_result=bool(row["has_result"]),
    )


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

    def get(self, run_id: str) -> RunRecord | None:
        """The run's record, or None when there is no such run."""
        row = self._select_one(f"select {', '.join(RECORD_COLUMNS)} from runs where id = ?", [run_id])
        return None if row is None else record_from_row(row)

    def list(self, limit: int = 500) -> list[RunSummary]:
        """Runs, newest first, as summaries (no config, plan or result)."""
        with self._lock:
            cursor = self._conn.cursor()
            cursor.row_factory = sqlite3.Row
            rows = cursor.execute(
                f"select {', '.join(SUMMARY_COLUMNS)} from runs order by created_at desc, rowid desc limit ?", [limit]
            ).fetchall()
        return [summary_from_row(row) for row in rows]

    def result(self, run_id: str) -> RunResult | None:
        """The stored result of a finished run; None when the run has none (or does not exist).

        Read as stored data (`rows.STORED`): rows of an older Arbor, lacking newer fields, open.
        Raises pydantic's ValidationError when the stored result is damaged or from an
        incompatible version, so the page showing it can say so.
        """
        row = self._select_one("select result_json from runs where id = ?", [run_id])
        if row is None or not row["result_json"]:
            return None
        return RunResult.model_validate_json(row["result_json"], context=STORED)

    def _select_one(self, sql: str, params: list[Any]) -> sqlite3.Row | None:
        with self._lock:
            cursor = self._conn.cursor()
            cursor.row_factory = sqlite3.Row
            return cursor.execute(sql, params).fetchone()

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
