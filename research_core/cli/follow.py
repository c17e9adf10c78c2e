"""Following a run that a worker drives (a PostgreSQL store): the CLI waits as if it drove the run itself.

The rules:
- The command waits until the worker's drive ends (finished, paused at a gate, failed, stopped)
  and then shows the outcome as an in-process run does; a run whose worker dies is resumed by
  another worker, and the command keeps waiting across the hand-over.
- When a worker takes a new run, the command prints the line an in-process run prints when it
  starts. A run still waiting for a worker after `NO_WORKER_AFTER_S` is said once, in one line.
- Ctrl-C (or SIGTERM, SIGHUP) while waiting asks the worker to stop the run at its next step
  (`Runner.request_stop`), then ends as an interrupted in-process run does.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from research_core.cli.output import report_progress, resume_command
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot

NO_WORKER_AFTER_S = 5.0
START_WORKER = "start one with `python -m research_core worker`"


@dataclass
class QueueWatch:
    """What has been said about a queued run so far; `see` is given each status read."""

    run_id: str
    on_start: Callable[[], None] | None
    since: float = field(default_factory=time.monotonic)
    started: bool = False
    warned: bool = False

    def see(self, status: str) -> None:
        """Say that a worker took the run (once), or that none has yet (once, after `NO_WORKER_AFTER_S`)."""
        if status == "queued" and not self.warned and time.monotonic() - self.since >= NO_WORKER_AFTER_S:
            self.warned = True
            report_progress(f"run id {self.run_id} queued; waiting for a worker ({START_WORKER})")
        elif status == "running" and not self.started:
            self.started = True
            if self.on_start is not None:
                self.on_start()


def follow(
    args: argparse.Namespace, runner: Runner, run_id: str, on_start: Callable[[], None] | None = None
) -> RunSnapshot:
    """Wait until the worker's drive of the queued run ends; its snapshot then. `on_start`: when a worker takes it."""
    args.resume_hint = resume_command(runner, run_id)
    watch = QueueWatch(run_id, on_start)
    try:
        return runner.wait(run_id, on_status=watch.see)
    except KeyboardInterrupt:
        runner.request_stop(run_id)
        report_progress(f"stop requested: the worker stops run {run_id} at its next step")
        raise
