"""Waiting for a run that another process drives (a worker): its record's status, polled until it settles."""

from __future__ import annotations

import time
from collections.abc import Callable

from research_core.runs.errors import RunError
from research_core.runs.store import RunStore

# A run with one of these statuses is waiting for a worker or being driven; any other status is where a
# drive ended (finished, paused at a gate, failed, stopped, cancelled).
UNSETTLED = ("created", "queued", "running")


def wait_until_settled(
    store: RunStore,
    run_id: str,
    *,
    timeout: float | None = None,
    poll_s: float = 0.25,
    on_status: Callable[[str], None] | None = None,
) -> str:
    """Poll the run's record until its status leaves `UNSETTLED` or `timeout` seconds pass; returns the status.

    `on_status` sees every status read (the CLI says when a worker takes the run, or that none has).
    A run whose worker died stays `running` until the queue gives it to another worker, so waiting
    goes on across the hand-over. A run deleted meanwhile is a RunError.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        record = store.get(run_id)
        if record is None:
            raise RunError(f"Run {run_id} no longer exists: it was deleted while waiting for it.")
        if on_status is not None:
            on_status(record.status)
        if record.status not in UNSETTLED or (deadline is not None and time.monotonic() >= deadline):
            return record.status
        time.sleep(poll_s)
