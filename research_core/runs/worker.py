"""A worker process: takes queued runs (`runs.queue`) from PostgreSQL and drives each from its checkpoint.

The rules:
- A job is driven by `Runner.resume_queued` with the LLM settings the run was started with: a run
  with no checkpoint starts, one with a checkpoint continues where the last drive stopped, one
  paused at a gate gets the answer queued with it; a stop requested meanwhile ends the drive at
  the next step (the run is then `interrupted`).
- Each worker writes a heartbeat (Procrastinate's `procrastinate_workers` table) every
  `heartbeat_s`. A worker whose heartbeat is older than `stalled_after_s` is dead: every worker
  looks for such workers' unfinished jobs every `sweep_s` (a Procrastinate periodic task) and
  puts them back in the queue, where the next free worker resumes the run from its checkpoint.
  The run's record says `queued` again and forgets its owner, unless that owner is a live process
  on this machine: the owner check (`RunStore.claim`) then still refuses it, so a slow worker
  wrongly taken for dead is not driven twice here.
- SIGINT or SIGTERM stop taking jobs and let the runs in progress finish (Procrastinate's
  graceful shutdown); a run cut short by SIGKILL is resumed by another worker as above.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field

from research_core.configuration import resolve_llm_settings
from research_core.runs.ownership import owner_alive, owner_elsewhere
from research_core.runs.queue import DRIVE_TASK, QUEUE, ensure_queue_schema, queue_app, require_postgres
from research_core.runs.runner import Runner
from research_core.runs.store import RunStore
from research_core.storage.location import StoreLocation

SWEEP_TASK = "arbor.requeue_stalled_runs"


def _quiet(_line: str) -> None:
    """The default progress sink: say nothing."""


@dataclass(frozen=True)
class WorkerSettings:
    """How a worker runs: runs at once, and when a silent worker counts as dead."""

    concurrency: int = 1
    stalled_after_s: float = 30.0
    progress: Callable[[str], None] = field(default=_quiet, compare=False)

    @property
    def heartbeat_s(self) -> float:
        """Seconds between this worker's heartbeats: a third of `stalled_after_s`."""
        return self.stalled_after_s / 3

    @property
    def sweep_s(self) -> int:
        """Seconds between looks for dead workers' jobs: a third of `stalled_after_s`, 1 to 59."""
        return max(1, min(59, int(self.stalled_after_s // 3)))


def drive_queued_run(location: StoreLocation, run_id: str) -> str:
    """Drive one queued run with its own LLM settings until it ends or pauses; returns its status after."""
    runner = Runner(location)
    if runner.store.get(run_id) is None:
        return "deleted"  # while it waited in the queue: nothing to do
    stored = runner.llm_record(run_id)
    if stored is not None:
        runner.use_llm_settings(resolve_llm_settings(stored))
    return runner.resume_queued(run_id).status


def forget_dead_owner(store: RunStore, run_id: str) -> None:
    """Mark a dead worker's run `queued` without an owner, unless its owner is seen alive on this machine."""
    record = store.get(run_id)
    if record is None or record.status != "running":
        return
    if owner_elsewhere(record.owner_token) or not owner_alive(record.owner_pid, record.owner_token):
        store.update(run_id, status="queued", owner_pid=None, owner_token=None)


def worker_app(location: StoreLocation, settings: WorkerSettings):  # -> procrastinate.App
    """The Procrastinate app of a worker: the drive task and the periodic re-queueing of dead workers' jobs."""
    app = queue_app(location)

    @app.task(name=DRIVE_TASK, queue=QUEUE)
    async def drive_run(run_id: str) -> str:
        settings.progress(f"run {run_id}: taken")
        status = await asyncio.to_thread(drive_queued_run, location, run_id)
        settings.progress(f"run {run_id}: {status}")
        return status

    @app.periodic(cron=f"* * * * * */{settings.sweep_s}", periodic_id="stalled")
    @app.task(name=SWEEP_TASK, queue=QUEUE, queueing_lock=SWEEP_TASK)
    async def requeue_stalled_runs(timestamp: int) -> int:
        manager = app.job_manager
        stalled = await manager.get_stalled_jobs(
            queue=QUEUE, task_name=DRIVE_TASK, seconds_since_heartbeat=settings.stalled_after_s
        )
        for job in stalled:
            run_id = str(job.task_kwargs.get("run_id"))
            await asyncio.to_thread(forget_dead_owner, RunStore(location), run_id)  # before a worker can claim it
            await manager.retry_job(job)
            settings.progress(f"run {run_id}: its worker stopped; queued again")
        return len(stalled)

    return app


async def serve(location: StoreLocation, settings: WorkerSettings) -> None:
    """Take queued runs until SIGINT or SIGTERM (the queue's tables are created first if missing)."""
    require_postgres(location)
    await asyncio.to_thread(ensure_queue_schema, location)
    app = worker_app(location, settings)
    name = f"arbor-{socket.gethostname()}-{os.getpid()}"
    async with app.open_async():
        settings.progress(f"worker {name} takes runs from {location.shown} ({settings.concurrency} at once)")
        await app.run_worker_async(
            queues=[QUEUE],
            concurrency=settings.concurrency,
            name=name,
            wait=True,
            delete_jobs="successful",
            install_signal_handlers=True,
            update_heartbeat_interval=settings.heartbeat_s,
            stalled_worker_timeout=settings.stalled_after_s,
        )
