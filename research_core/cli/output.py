"""What the command line says besides a run's own output: progress lines, resume hints, output files."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from research_core.cli.errors import CliError
from research_core.cli.files import OutputPathError, write_output
from research_core.runs.runner import Runner
from research_core.storage.location import StorageError, locate


def report_progress(message: str) -> None:
    """Print `arbor: MESSAGE` on stderr at once (progress and warnings; stdout holds the results)."""
    print(f"arbor: {message}", file=sys.stderr, flush=True)


def db_flag(runner: Runner) -> str:
    """` --db PATH` (or URL, its password masked) when the runner's database is not the one a bare command would use."""
    try:
        default = locate(None)
    except StorageError:
        default = None
    here = runner.location
    if here.path is not None:
        try:
            same = default is not None and default.path is not None and here.path.resolve() == default.path.resolve()
        except OSError:
            same = False
    else:
        same = here == default
    return "" if same else f" --db {shlex.quote(here.shown)}"


def resume_command(runner: Runner, run_id: str, answer: str | None = None) -> str:
    """The command that continues `run_id` (with `answer` to its gate), naming the database if not the default."""
    tail = f" --answer {answer}" if answer else ""
    return f"python -m research_core resume {run_id}{db_flag(runner)}{tail}"


def show_command(runner: Runner, run_id: str) -> str:
    """The command that shows `run_id`'s status, naming the database if not the default."""
    return f"python -m research_core show {run_id}{db_flag(runner)}"


def write_file(path: Path, text: str | bytes, runner: Runner, option: str) -> None:
    """Write one output file atomically, never over the database; a problem is one CliError line."""
    try:
        write_output(path, text, runner.db_path, option)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None
