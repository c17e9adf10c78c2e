"""The run queue of a team installation: runs waiting for a `worker`, kept by Procrastinate in PostgreSQL.

The rules:
- Only a PostgreSQL store has a queue; on SQLite runs stay on the threads of the process that
  starts them (`threads.RunThreads`), and asking for the queue is a one-line `RunError`.
- A queued job names one run id and nothing else: the run's question, settings and LLM settings
  are in its run record, its progress in its checkpoints. A job takes the run from its
  checkpoint (`Runner.resume`), so a job re-run after its worker died continues the run.
- One job per run at a time: the job's `queueing_lock` (one waiting job per run) and `lock` (one
  running job per run) are the run id.
- A queued run's record says `queued` from before its job exists until a worker claims it (then
  `running`). What the workbench or the CLI asks of it travels in its record: the answer to its
  open gate (applied by the worker that takes the job, `Runner.resume_queued`) and a stop request
  (`RunStore.request_stop`, honoured at the next step boundary by whoever drives it).
- Procrastinate's tables are created once, the first time a process asks for the queue; the
  check and the creation run under a PostgreSQL advisory lock, so two processes starting
  together do not both create them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from research_core.runs.errors import RunError
from research_core.storage.engines import unreachable
from research_core.storage.location import StoreLocation

if TYPE_CHECKING:
    import procrastinate

    from research_core.configuration import RunConfig
    from research_core.runs.store import RunStore
    from research_core.schemas import Plan

logger = logging.getLogger(__name__)

QUEUE = "arbor_runs"
DRIVE_TASK = "arbor.drive_run"
# Any constant shared by every Arbor process; serialises the creation of Procrastinate's tables.
SCHEMA_LOCK_KEY = 0x4172626F72_5101
NEEDS_POSTGRES = "workers need a PostgreSQL store: set ARBOR_DATABASE_URL or pass --db postgresql://..."


def require_postgres(location: StoreLocation) -> StoreLocation:
    """The location itself when it is PostgreSQL; a one-line RunError on a SQLite store."""
    if not location.is_postgres:
        raise RunError(NEEDS_POSTGRES)
    return location


def ensure_queue_schema(location: StoreLocation) -> bool:
    """Create Procrastinate's tables in the database unless they exist; True when this call created them.

    Idempotent and safe to call from several processes at once (advisory lock, one transaction).
    """
    import psycopg
    from procrastinate.schema import SchemaManager

    try:
        conn = psycopg.connect(require_postgres(location).conninfo())
    except psycopg.OperationalError as exc:
        raise unreachable(location, exc) from None
    with conn, conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
        row = conn.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone()
        if row is not None and row[0]:
            return False
        conn.execute(SchemaManager.get_schema())  # no parameters: sent as it is, several statements
    logger.info("created the run queue's tables in %s", location.shown)
    return True


def queue_app(location: StoreLocation) -> procrastinate.App:
    """A Procrastinate app on the location's database (not opened yet)."""
    import procrastinate

    conninfo = require_postgres(location).conninfo()
    return procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo))


def enqueue_new_run(
    store: RunStore,
    create_run: Callable[[str, RunConfig, Plan | dict | None], str],
    question: str,
    config: RunConfig,
    plan: Plan | dict | None = None,
) -> str:
    """Record a new run with `create_run` (a Runner's) and queue it; refused before recording on SQLite."""
    require_postgres(store.location)
    run_id = create_run(question, config, plan)
    queue_run(store, run_id)
    return run_id


def queue_run(store: RunStore, run_id: str, answer: Any = None, llm: dict[str, Any] | None = None) -> int:
    """Mark the run `queued` in `store`, keeping `answer` (a gate answer's plain form) and `llm` (the LLM
    settings to go on with) for the worker, and queue a job for it; returns the job id.

    The record is marked first, so a worker quick to claim the job is not overwritten by the mark.
    A run a live worker is researching is refused (RunError).
    """
    from research_core.runs.ownership import owner_alive

    require_postgres(store.location)
    record = store.get(run_id)
    if record is not None and record.status == "running" and owner_alive(record.owner_pid, record.owner_token):
        raise RunError(f"Run {run_id} is being researched by a worker; wait until it pauses or finishes.")
    store.queue_again(run_id, answer, llm)
    return enqueue_run(store.location, run_id)


def enqueue_run(location: StoreLocation, run_id: str) -> int:
    """Queue the run for a worker; returns the job id.

    A run that already has a job waiting keeps it: its id is returned and nothing is added.
    """
    from procrastinate import exceptions

    ensure_queue_schema(location)
    app = queue_app(location)
    with app.open():
        deferrer = app.configure_task(DRIVE_TASK, queue=QUEUE, lock=run_id, queueing_lock=run_id)
        try:
            return deferrer.defer(run_id=run_id)
        except exceptions.AlreadyEnqueued:
            rows = app.job_manager.list_jobs(queue=QUEUE, queueing_lock=run_id, status="todo")
            waiting = list(rows)
            if not waiting or waiting[0].id is None:
                raise RunError(f"Run {run_id} could not be queued; try again.") from None
            return waiting[0].id
