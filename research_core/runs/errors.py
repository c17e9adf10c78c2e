"""The error of the run API: what the UI and the CLI show when a run cannot be started or driven."""

from __future__ import annotations

from research_core.errors import ArborError


class RunError(ArborError, RuntimeError):
    """A user-facing error about a run (unknown id, busy run, invalid question ...)."""
