"""The command line's own error and its exit codes."""

from __future__ import annotations

from research_core.errors import ArborError

EXIT_FAILED = 1  # a run failed or stopped short, or an engine error
EXIT_USAGE = 2  # a user mistake: a bad option, an unknown run, a file that cannot be written


class CliError(ArborError):
    """A user-facing error: printed as one line, exit code 2."""
