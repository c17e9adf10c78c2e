"""The run checkpointer stores exactly what SqliteSaver stores, without encoding under its lock."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from research_core.checkpoint_saver import RunCheckpointer
from research_core.store import connect, open_checkpointer

THREAD = {"configurable": {"thread_id": "run-1", "checkpoint_ns": ""}}

# A chain's step as LangGraph saves it, then saved again (a resumed task re-saving its writes),
# then an error and an interrupt of the same task, which replace what was there.
WRITES: list[tuple[list[tuple[str, Any]], str]] = [
    ([("findings", [{"id": "f1", "text": "Sea level rose 20 cm"}]), ("costs", [{"cost_usd": 0.001}])], "task-a"),
    ([("findings", [{"id": "f1", "text": "changed on a second save"}])], "task-a"),
    ([("log", [{"event": "research_step"}])], "task-b"),
    ([("__error__", "boom")], "task-c"),
    ([("__error__", "boom again"), ("__interrupt__", [{"kind": "step"}])], "task-c"),
]


def _store(saver: SqliteSaver) -> tuple[list[tuple], dict]:
    saved = saver.put(THREAD, empty_checkpoint(), {"source": "loop", "step": 1}, {})
    for writes, task_id in WRITES:
        saver.put_writes(saved, writes, task_id, task_path="~path")
    rows = saver.conn.execute(
        "SELECT thread_id, checkpoint_ns, task_id, task_path, idx, channel, type, value FROM writes "
        "ORDER BY task_id, idx"
    ).fetchall()
    pending = saver.get_tuple({"configurable": {"thread_id": "run-1"}}).pending_writes
    return rows, {(task, channel): value for task, channel, value in pending}


def test_the_run_checkpointer_saves_the_same_writes_as_sqlite_saver(tmp_path: Path) -> None:
    ours = _store(RunCheckpointer(connect(tmp_path / "ours.db")))
    theirs = _store(SqliteSaver(connect(tmp_path / "theirs.db")))

    assert ours == theirs
    rows, pending = ours
    # A write saved twice keeps its first value; an error or interrupt is replaced by the latest.
    assert pending[("task-a", "findings")] == [{"id": "f1", "text": "Sea level rose 20 cm"}]
    assert pending[("task-c", "__error__")] == "boom again"
    assert pending[("task-c", "__interrupt__")] == [{"kind": "step"}]
    assert len(rows) == 5


class _LockWatchingSerde(JsonPlusSerializer):
    """Records whether the saver's connection lock was held while a value was encoded."""

    def __init__(self) -> None:
        super().__init__()
        self.saver: SqliteSaver | None = None
        self.held: list[bool] = []

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if self.saver is not None:
            self.held.append(self.saver.lock.locked())
        return super().dumps_typed(obj)


def _encodings_under_lock(saver_type: type[SqliteSaver], db: Path) -> list[bool]:
    serde = _LockWatchingSerde()
    saver = saver_type(connect(db), serde=serde)
    saved = saver.put(THREAD, empty_checkpoint(), {"source": "loop", "step": 1}, {})
    serde.saver = saver
    saver.put_writes(saved, WRITES[0][0], "task-a")
    return serde.held


def test_writes_are_encoded_before_the_connection_lock_is_taken(tmp_path: Path) -> None:
    # Parallel chains share the connection: encoding under its lock made them queue (bench/README.md).
    assert _encodings_under_lock(RunCheckpointer, tmp_path / "ours.db") == [False, False]
    assert _encodings_under_lock(SqliteSaver, tmp_path / "theirs.db") == [True, True]


def test_runs_open_the_run_checkpointer_in_wal_mode(tmp_path: Path) -> None:
    with open_checkpointer(tmp_path / "arbor.db") as saver:
        assert isinstance(saver, RunCheckpointer)
    conn = sqlite3.connect(tmp_path / "arbor.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"checkpoints", "writes"} <= {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
