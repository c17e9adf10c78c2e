"""The `worker` command: research the runs queued in a PostgreSQL store until stopped."""

from __future__ import annotations

import argparse
import asyncio

from research_core.cli.output import report_progress
from research_core.cli.preflight import command_location
from research_core.runs.queue import require_postgres
from research_core.runs.worker import WorkerSettings, serve


def worker(args: argparse.Namespace) -> int:
    """Take queued runs until SIGINT or SIGTERM; a SQLite store is refused in one line before anything starts."""
    location = require_postgres(command_location(args))
    settings = WorkerSettings(
        concurrency=args.concurrency, stalled_after_s=args.stalled_after, progress=report_progress
    )
    asyncio.run(serve(location, settings))
    report_progress("worker stopped")
    return 0
