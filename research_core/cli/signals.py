"""SIGTERM and SIGHUP end a CLI command the way Ctrl-C does.

A closed terminal (SIGHUP), `kill`, or a container or service stop (SIGTERM) would otherwise end
the process at once: the run stays marked as running and the embedded model server is orphaned.
Turned into a `Stopped` exception (a KeyboardInterrupt), they take Ctrl-C's path instead: the
runner marks the run interrupted, the model server is stopped, and the CLI exits with 128 + the
signal number, saying how to resume. On any of the three signals `on_stop` runs first (the CLI
passes `stop_new_calls`, so no step starts another LLM call while the run winds down).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None)


class Stopped(KeyboardInterrupt):
    """The process was asked to stop by a signal; `signum` says which."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        """The signal's name, e.g. SIGTERM."""
        return signal.Signals(self.signum).name


def exit_code(exc: KeyboardInterrupt) -> int:
    """The conventional exit status after a signal: 128 + its number (130 for Ctrl-C)."""
    return 128 + (exc.signum if isinstance(exc, Stopped) else signal.SIGINT)


@contextmanager
def stop_signals_interrupt(on_stop: Callable[[], None] | None = None) -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise `Stopped` in the main thread, Ctrl-C KeyboardInterrupt.

    A second SIGTERM or SIGHUP is ignored while the first is being handled, so the clean-up (marking
    the run, stopping the model server) is not cut short; a second Ctrl-C still interrupts it.
    Previous handlers come back on exit.
    """
    previous: dict[int, Any] = {}
    stopping = False

    def handler(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        if signum != signal.SIGINT and stopping:
            return
        first = not stopping
        stopping = True
        if first and on_stop is not None:
            on_stop()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Stopped(signum)

    try:
        for signum in (signal.SIGINT, *STOP_SIGNALS):
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: leave the signals alone
        for signum, old in previous.items():
            signal.signal(signum, old)
        previous.clear()
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
