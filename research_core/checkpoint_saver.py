"""The run's LangGraph checkpointer: SqliteSaver with its writes serialized outside the lock.

SqliteSaver shares one connection between threads behind one lock, and its `put_writes` encodes
the written values while holding that lock. With branches researched in parallel, a chain that is
starting (it looks up its checkpoint namespace) or saving a step queued behind another chain's
encoding, and under the interpreter lock that encoding takes several times its CPU time: the
eighth of eight chains started about 80 ms after the first (bench/README.md, section 1). Here the
rows are encoded first and the lock is held only for the SQL, as `SqliteSaver.put` already does.
The rows are the same as SqliteSaver's, so databases stay interchangeable with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.checkpoint.sqlite import SqliteSaver

_REPLACE = (
    "INSERT OR REPLACE INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, "
    "type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_IGNORE = _REPLACE.replace("INSERT OR REPLACE", "INSERT OR IGNORE", 1)


class RunCheckpointer(SqliteSaver):
    """SqliteSaver whose `put_writes` encodes values before it takes the connection lock."""

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes (same rows and conflict rules as SqliteSaver)."""
        # Special channels (errors, interrupts, resume values) are replaced; ordinary writes of a
        # task that already saved them are kept, as in SqliteSaver.
        query = _REPLACE if all(channel in WRITES_IDX_MAP for channel, _ in writes) else _IGNORE
        configurable = config["configurable"]
        key = (str(configurable["thread_id"]), str(configurable["checkpoint_ns"]), str(configurable["checkpoint_id"]))
        rows = [
            (*key, task_id, task_path, WRITES_IDX_MAP.get(channel, idx), channel, *self.serde.dumps_typed(value))
            for idx, (channel, value) in enumerate(writes)
        ]
        with self.cursor() as cur:
            cur.executemany(query, rows)
