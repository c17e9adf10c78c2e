"""The commands of a team's runs: share one of yours (or make it private again), fork one you can read."""

from __future__ import annotations

import argparse

from research_core.accounts.access import UserRuns
from research_core.cli.output import report_progress, resume_command
from research_core.cli.results import print_outcome
from research_core.configuration import RunConfig


def share(args: argparse.Namespace, runner: UserRuns, config: RunConfig | None) -> int:
    """Share your run with the team (read-only for the others), or with --private make it yours alone again."""
    visibility = "private" if args.private else "team"
    runner.set_visibility(args.run_id, visibility)
    print(f"{args.run_id} is {'private' if args.private else 'shared with the team (read-only for the others)'}")
    return 0


def fork(args: argparse.Namespace, runner: UserRuns, config: RunConfig | None) -> int:
    """Copy a run's question, settings and plan into a new run of yours, and take it to its plan review."""
    new_id = runner.fork(args.run_id)
    args.resume_hint = resume_command(runner, new_id)  # type: ignore[arg-type]
    report_progress(
        f"run id {new_id} forked from {args.run_id}; review its plan, then: {args.resume_hint} --answer approve"
    )
    return print_outcome(runner, runner.resume(new_id), None, None)  # type: ignore[arg-type]
