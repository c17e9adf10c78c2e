"""What is checked before a command does any work: the database it reads, its output paths, a supplied plan."""

from __future__ import annotations

import argparse
import os
from typing import Any

from research_core.cli.errors import CliError
from research_core.cli.files import MissingDatabaseError, OutputPathError, check_output_path, require_database
from research_core.cli.output import report_progress
from research_core.configuration import RunConfig
from research_core.storage.location import PATH_VARIABLE, StorageError, StoreLocation, locate

# The output options of each command, checked before the command does any work.
OUTPUT_OPTIONS = {
    "decompose": ("json",),
    "run": ("out", "json"),
    "resume": ("out", "json"),
    "rerun": ("out", "json"),
    "compare": ("json",),
    "export": ("out",),
}
DETACH_NEEDS_POSTGRES = "--detach needs a PostgreSQL store: set ARBOR_DATABASE_URL or pass --db postgresql://..."
# Commands that only make sense on an existing database: refused, with nothing created, without one.
NEEDS_DATABASE = {"runs", "show", "export", "resume", "rerun", "delete", "cache"}
LIBRARY_NEEDS_DATABASE = {"search", "list", "remove"}


def command_location(args: argparse.Namespace) -> StoreLocation:
    """The database of a command: `--db`, else the environment's; a bad `ARBOR_DATABASE_URL` is one CliError line."""
    try:
        return locate(args.db)
    except StorageError as exc:
        raise CliError(exc.user_message) from None


def check_files(args: argparse.Namespace) -> None:
    """Before any work: the SQLite file a reading command needs exists; no output path is that file; no --detach.

    A PostgreSQL database is not checked here: it is the server's, and opening it says if it cannot be reached.
    """
    location = command_location(args)
    if location.path is None:
        return
    if getattr(args, "detach", False):
        raise CliError(DETACH_NEEDS_POSTGRES)
    db = location.path
    reading = args.command in NEEDS_DATABASE or (args.command == "compare" and args.runs)
    if args.command == "library":
        reading = args.library_command in LIBRARY_NEEDS_DATABASE
    if reading:
        try:
            require_database(db, default=args.db is None and PATH_VARIABLE not in os.environ)
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
