"""The runs table: one record per run, read back as typed records (`research_core.runs.records`).

It lives in the installation's database next to the checkpoints: the SQLite file, or PostgreSQL
(`research_core.storage`); one table definition (`runs.table`) and one set of statements serve
both. A record carries what History, Compare and the CLI need without replaying a graph; a run's
ownership (which process drives it) is claimed and released here in one transaction each, so two
processes never drive or delete the same run at once: the row is read with the write lock held
(`BEGIN IMMEDIATE` on SQLite, `SELECT ... FOR UPDATE` on PostgreSQL).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection, column, delete, func, insert, select, table, update

from research_core.runs.records import RunRecord, RunResult, RunSummary, RunTotals
from research_core.runs.rows import STORED
from research_core.runs.table import checkpoint_tables, create_or_upgrade, insertion_order, runs
from research_core.schemas import utc_now
from research_core.storage.location import StoreLocation
from research_core.storage.tables import TableStore

logger = logging.getLogger(__name__)

Row = Mapping[str, Any]


class RunOwnedElsewhere(Exception):
    """A live process other than this one drives the run; `pid` names it."""

    def __init__(self, pid: int):
        super().__init__(f"run driven by process {pid}")
        self.pid = pid


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
    "owner",
    "visibility",
)
RECORD_COLUMNS = (*SUMMARY_COLUMNS, "config_json", "plan_json", "llm_json", "active_s")
OWNER_COLUMNS = (runs.c.status, runs.c.owner_pid, runs.c.owner_token)


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


def summary_from_row(row: Row) -> RunSummary:
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
        owner=row["owner"],
        visibility=row["visibility"],
    )


def record_from_row(row: Row) -> RunRecord:
    """A RunRecord from a row of the runs table (RECORD_COLUMNS and `has_result`); config and plan are its JSON."""
    summary = summary_from_row(row)
    return RunRecord(
        **{field.name: getattr(summary, field.name) for field in dataclasses.fields(RunSummary)},
        config=json.loads(row["config_json"]),
        plan=json.loads(row["plan_json"]) if row["plan_json"] else None,
        llm=read_llm_settings(row["id"], row["llm_json"]),
        active_s=float(row["active_s"] or 0.0),
        has_result=bool(row["has_result"]),
    )


class RunStore(TableStore):
    """The runs table: what History and Compare need without replaying a graph.

    `db` is a SQLite path, a PostgreSQL URL or a `StoreLocation`; None means the environment's
    (`storage.location.locate`). A database that cannot be opened raises `StorageError`.
    """

    def __init__(self, db: StoreLocation | Path | str | None):
        super().__init__(db, create_or_upgrade)
        self.db_path = self.location.path
        self._order = insertion_order(self._engine.dialect.name)

    def create(
        self,
        run_id: str,
        question: str,
        config: dict[str, Any],
        parent_run_id: str | None = None,
        llm: dict[str, Any] | None = None,
        owner: str | None = None,
    ) -> None:
        """Record a new run; `llm` holds the LLM settings it runs with (never an API key).

        A run with an `owner` (an account) starts private; one without belongs to the local user. A
        branch re-run (`parent_run_id`) given no owner belongs to the owner of the run it re-runs.
        """
        now = utc_now()
        with self._transaction() as conn:
            if owner is None and parent_run_id is not None:
                owner = conn.execute(select(runs.c.owner).where(runs.c.id == parent_run_id)).scalar()
            conn.execute(
                insert(runs).values(
                    id=run_id,
                    question=question,
                    mode=config.get("mode", "auto"),
                    status="created",
                    template=config.get("template", ""),
                    created_at=now,
                    updated_at=now,
                    config_json=json.dumps(config),
                    parent_run_id=parent_run_id,
                    llm_json=json.dumps(llm) if llm is not None else None,
                    active_s=0.0,
                    owner=owner,
                    visibility="private" if owner is not None else None,
                )
            )

    def update(self, run_id: str, **fields: Any) -> None:
        """Update some columns of a run; dict values are stored as JSON."""
        values = {k: (json.dumps(v) if isinstance(v, dict | list) else v) for k, v in fields.items()}
        values["updated_at"] = utc_now()
        with self._transaction() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(**values))

    def _owner_row(self, conn: Connection, run_id: str) -> Row | None:
        """The run's status and owner, locked until the transaction ends (SQLite: by BEGIN IMMEDIATE)."""
        query = select(*OWNER_COLUMNS).where(runs.c.id == run_id).with_for_update()
        return conn.execute(query).mappings().first()

    def claim(
        self, run_id: str, owner_pid: int, owner_token: str, owner_alive: Callable[[int | None, str | None], bool]
    ) -> int | None:
        """Mark the run as being driven by this owner, atomically across processes.

        Returns the pid of another live owner already driving it (nothing is changed then), or
        None once the run is claimed. The check and the write share one transaction holding the
        row's write lock, so two processes can never both claim a run.
        """
        with self._transaction(immediate=True) as conn:
            row = self._owner_row(conn, run_id)
            if (
                row is not None
                and row["status"] == "running"
                and (row["owner_pid"], row["owner_token"]) != (owner_pid, owner_token)
                and owner_alive(row["owner_pid"], row["owner_token"])
            ):
                return int(row["owner_pid"])
            owner = {"owner_pid": owner_pid, "owner_token": owner_token}
            claimed = {"status": "running", "error": None, **owner, "updated_at": utc_now()}
            conn.execute(update(runs).where(runs.c.id == run_id).values(**claimed))
        return None

    def queue_again(self, run_id: str, answer: Any = None, llm: dict[str, Any] | None = None) -> None:
        """Mark the run as waiting for a worker: status `queued`, `answer` (a gate answer's plain form)
        kept for the worker to apply, any earlier stop request withdrawn; `llm`: the LLM settings to go on with."""
        values: dict[str, Any] = {"queued_answer_json": json.dumps(answer) if answer is not None else None}
        if llm is not None:
            values["llm_json"] = json.dumps(llm)
        self.update(run_id, status="queued", stop_requested_at=None, **values)

    def take_answer(self, run_id: str) -> Any:
        """The gate answer kept with the queued run (removed from the record as it is read); None if there is none."""
        with self._transaction(immediate=True) as conn:
            query = select(runs.c.queued_answer_json).where(runs.c.id == run_id).with_for_update()
            raw = conn.execute(query).scalar()
            if raw is not None:
                conn.execute(update(runs).where(runs.c.id == run_id).values(queued_answer_json=None))
        return json.loads(raw) if raw else None

    def request_stop(self, run_id: str) -> None:
        """Record that the user asked the run to stop; whoever drives it stops at its next step boundary."""
        self.update(run_id, stop_requested_at=utc_now())

    def stop_requested(self, run_id: str) -> bool:
        """Whether a stop was asked for the run since it was last queued."""
        with self._transaction() as conn:
            return conn.execute(select(runs.c.stop_requested_at).where(runs.c.id == run_id)).scalar() is not None

    def add_active_seconds(self, run_id: str, seconds: float) -> float:
        """Add one drive's duration to the run's research time; returns the new total."""
        added = func.coalesce(runs.c.active_s, 0) + max(0.0, float(seconds))
        with self._transaction() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(active_s=added, updated_at=utc_now()))
            total = conn.execute(select(runs.c.active_s).where(runs.c.id == run_id)).scalar()
        return float(total or 0.0)

    def get(self, run_id: str) -> RunRecord | None:
        """The run's record, or None when there is no such run."""
        columns = [runs.c[name] for name in RECORD_COLUMNS]
        query = select(*columns, runs.c.result_json.is_not(None).label("has_result")).where(runs.c.id == run_id)
        with self._transaction() as conn:
            row = conn.execute(query).mappings().first()
        return None if row is None else record_from_row(row)

    def list(self, limit: int = 500, keep: Callable[[RunSummary], bool] | None = None) -> list[RunSummary]:
        """Runs, newest first, as summaries (no config, plan or result); with `keep`, the first `limit` it keeps."""
        columns = [runs.c[name] for name in SUMMARY_COLUMNS]
        query = select(*columns).order_by(runs.c.created_at.desc(), self._order.desc())
        with self._transaction() as conn:
            rows = conn.execute(query if keep is not None else query.limit(limit)).mappings().all()
        summaries = (summary_from_row(row) for row in rows)
        return [s for s in summaries if keep is None or keep(s)][:limit]

    def result(self, run_id: str) -> RunResult | None:
        """The stored result of a finished run; None when the run has none (or does not exist).

        Read as stored data (`rows.STORED`): rows of an older Arbor, lacking newer fields, open.
        Raises pydantic's ValidationError when the stored result is damaged or from an
        incompatible version, so the page showing it can say so.
        """
        with self._transaction() as conn:
            raw = conn.execute(select(runs.c.result_json).where(runs.c.id == run_id)).scalar()
        if not raw:
            return None
        return RunResult.model_validate_json(raw, context=STORED)

    def delete(self, run_id: str, owner_alive: Callable[[int | None, str | None], bool] | None = None) -> bool:
        """Delete a run record with its checkpoints and writes, in one transaction. True if it existed.

        With `owner_alive`, a run marked running by a live owner is not touched: `RunOwnedElsewhere`
        is raised. The check and the deletion share one transaction holding the row's write lock, like `claim`.
        """
        with self._transaction(immediate=True) as conn:
            row = self._owner_row(conn, run_id)
            if (
                row is not None
                and owner_alive is not None
                and row["status"] == "running"
                and owner_alive(row["owner_pid"], row["owner_token"])
            ):
                raise RunOwnedElsewhere(int(row["owner_pid"]))
            conn.execute(delete(runs).where(runs.c.id == run_id))
            for name in checkpoint_tables(conn):
                checkpoints = table(name, column("thread_id"))
                conn.execute(delete(checkpoints).where(checkpoints.c.thread_id == run_id))
        return row is not None
