"""An LLM call its caller stops waiting for as soon as the run is stopped.

A reply from the embedded model can take minutes on a busy two-core machine; a stopped run (Ctrl-C,
SIGTERM, SIGHUP, a stop request seen by the drive) should not wait for it before the process can
exit or the run can be marked interrupted. The call runs on a daemon thread and the caller waits for
its reply, giving up within `poll_s` of `stopped()` turning true. The abandoned thread ends with its
HTTP request, or with the process: a daemon thread never holds the process open.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import TypeVar

T = TypeVar("T")


def unless_stopped(
    call: Callable[[], T], stopped: Callable[[], bool], on_stop: Callable[[], BaseException], poll_s: float = 0.2
) -> T:
    """`call()`'s result (or its exception); raises `on_stop()` instead once `stopped()` is true.

    `stopped` is looked at before the call starts and every `poll_s` while it runs. The call sees the
    caller's context variables.
    """
    if stopped():
        raise on_stop()
    future: Future[T] = Future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            future.set_result(context.run(call))
        except BaseException as exc:  # handed to the caller, who re-raises it
            future.set_exception(exc)

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    while True:
        done, _ = wait([future], timeout=poll_s)
        if done:
            return future.result()
        if stopped():
            raise on_stop()
