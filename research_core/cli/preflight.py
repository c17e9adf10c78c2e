"""What is checked before a command does any work: the database it reads, its output paths, a supplied plan."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from research_core.cli.errors import CliError
from research_core.cli.files import MissingDatabaseError, OutputPathError, check_output_path, require_database
from research_core.cli.output import report_progress
from research_core.configuration import RunConfig
from research_core.db import default_db_path

# The output options of each command, checked before the command does any work.
OUTPUT_OPTIONS = {
    "decompose": ("json",),
    "run": ("out", "json"),
    "resume": ("out", "json"),
    "rerun": ("out", "json"),
    "compare": ("json",),
    "export": ("out",),
}
# Commands that only make sense on an existing database: refused, with nothing created, without one.
NEEDS_DATABASE = {"runs", "show", "export", "resume", "rerun", "delete", "cache"}
LIBRARY_NEEDS_DATABASE = {"search", "list", "remove"}


def _db_path(args: argparse.Namespace) -> Path:
    return args.db if args.db is not None else default_db_path()


def check_files(args: argparse.Namespace) -> None:
    """Before any work: the database a reading command needs exists; no output path is the database."""
    db = _db_path(args)
    reading = args.command in NEEDS_DATABASE or (args.command == "compare" and args.runs)
    if args.command == "library":
        reading = args.library_command in LIBRARY_NEEDS_DATABASE
    if reading:
        try:
            require_database(db, default=args.db is None and "ARBOR_DB" not in os.environ)
        except MissingDatabaseError as exc:
            raise CliError(str(exc)) from None
    for name in OUTPUT_OPTIONS.get(args.command, ()):
        path = getattr(args, name, None)
        if path is not None:
            try:
                check_output_path(path, db, f"--{name}")
            except OutputPathError as exc:
                raise CliError(str(exc)) from None


def check_plan(plan: Any, question: str, config: RunConfig) -> None:
    """Refuse a supplied plan the run would refuse; with --auto, say which branches the budget cannot fund."""
    from research_core.planning.budget import plan_budget
    from research_core.planning.plan import PlanError, validate_plan

    try:
        checked = validate_plan(plan, question, config=config)
    except PlanError as exc:
        raise CliError(f"The plan is invalid: {exc}") from None
    if not config.auto_approve:
        return  # the review gate shows the budget before anything runs
    note = plan_budget(config, {sq.id: sq.priority for sq in checked.sub_questions}).note
    if note:
        report_progress(f"warning: {note}")
