"""The entry point of `python -m research_core`: parse, check, run one command, report errors in one line.

Errors print one line to stderr and exit non-zero; a user mistake never prints a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from collections.abc import Callable

from pydantic import ValidationError

from research_core.accounts.access import UserRuns
from research_core.accounts.records import LOCAL_USER
from research_core.cli.commands.cache import cache
from research_core.cli.commands.compare import compare
from research_core.cli.commands.gates import gates
from research_core.cli.commands.library import library
from research_core.cli.commands.research import decompose, rerun, resume, run
from research_core.cli.commands.runs import delete, export, list_runs, show
from research_core.cli.commands.sharing import fork, share
from research_core.cli.commands.users import users
from research_core.cli.commands.worker import worker
from research_core.cli.config import command_config, make_runner, validation_line
from research_core.cli.errors import EXIT_FAILED, EXIT_USAGE, CliError
from research_core.cli.options import check_numbers
from research_core.cli.parser import NUMBER_OPTIONS, build_parser
from research_core.cli.preflight import check_files, command_location
from research_core.cli.signals import Stopped, exit_code, stop_signals_interrupt
from research_core.cli.signin import acting_user, check_allowed
from research_core.cli.terminal import clean_output_streams
from research_core.configuration import LLMSettings, RunConfig
from research_core.errors import ArborError
from research_core.llm.client import allow_new_calls, stop_new_calls
from research_core.net.transfer import allow_transfers, stop_transfers
from research_core.runs.errors import RunError
from research_core.runs.runner import Runner
from research_core.text.sanitize import strip_url_secrets_in_text

Command = Callable[[argparse.Namespace, Runner, RunConfig | None], int]
COMMANDS: dict[str, Command] = {
    "decompose": decompose,
    "run": run,
    "resume": resume,
    "compare": compare,
    "rerun": rerun,
    "runs": list_runs,
    "show": show,
    "export": export,
    "delete": delete,
    "share": share,
    "fork": fork,
}
# Commands that need the run API of one user even without accounts (as the local user).
AS_A_USER = ("share", "fork")


def run_command(args: argparse.Namespace) -> int:
    """Execute one parsed command; returns the exit code.

    Numbers and files are checked before any work. Sets `args.resume_hint` to the command that
    continues the run once a run is known, for the message after Ctrl-C.
    """
    problem = check_numbers(args, NUMBER_OPTIONS)
    if problem:
        raise CliError(problem)
    if args.command == "gates":  # reads no database and needs no LLM
        return gates(args)
    if args.command == "worker":  # each run brings its own LLM settings
        return worker(args)
    if args.command == "users":  # signs in itself: no admin is needed before the first one exists
        return users(args)
    check_files(args)
    user = acting_user(args, command_location(args))
    if user is not None:
        check_allowed(args, user)
    if args.command == "library":
        return library(args)
    if args.command == "cache":
        return cache(args)
    runner: Runner | UserRuns = make_runner(args)
    if user is not None or args.command in AS_A_USER:
        runner = UserRuns(runner, user or LOCAL_USER)
    config = command_config(args)
    command = COMMANDS.get(args.command)
    return command(args, runner, config) if command is not None else EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, run, and turn user errors into one line on stderr.

    Everything printed is cleaned for the terminal; SIGTERM and SIGHUP stop a command like Ctrl-C.
    """
    with clean_output_streams(), stop_signals_interrupt(on_stop=_stop_new_work):
        try:
            return _main(argv)
        finally:
            allow_new_calls()
            allow_transfers()


def _stop_new_work() -> None:
    """On a stop signal: no new LLM call starts, and page and search transfers end at their next read."""
    stop_new_calls()
    stop_transfers()


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING, format="arbor: %(message)s"
    )
    try:
        return run_command(args)
    except (CliError, RunError) as exc:
        _say_error(str(exc))
        return EXIT_USAGE
    except ValidationError as exc:  # settings built from flags and the environment
        _say_error(validation_line(exc, LLMSettings))
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        how = f"stopped by {exc.name}" if isinstance(exc, Stopped) else "interrupted"
        hint = getattr(args, "resume_hint", None)
        if hint:
            _say_error(f"{how}; everything gathered so far is saved; resume with: {hint}")
        else:
            _say_error(how)
        return exit_code(exc)
    except ArborError as exc:  # the engine's own errors carry a user message
        _say_error(exc.user_message or f"{type(exc).__name__}: {exc}")
        return EXIT_FAILED
    except Exception as exc:
        _say_error(f"{type(exc).__name__}: {exc}")
        return EXIT_FAILED
    finally:
        try:
            from research_core.llm.local_model import stop_shared_server

            stop_shared_server()
        except ImportError:
            pass


def _say_error(message: str) -> None:
    """Print `arbor: MESSAGE` on stderr as one line; a closed terminal (SIGHUP) is not an error."""
    lines = [line.strip() for line in strip_url_secrets_in_text(message).splitlines() if line.strip()]
    with contextlib.suppress(OSError):
        print(f"arbor: {lines[0] if lines else message}", file=sys.stderr, flush=True)
