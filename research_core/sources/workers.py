"""Run a few jobs at once on daemon threads, and stop waiting for them at a deadline or a stop.

Page fetches run here rather than on a `ThreadPoolExecutor`: the interpreter joins an executor's
threads at exit, so a fetch stuck on a slow server kept the process alive after its run ended
(and after Ctrl-C). Daemon threads never delay exit, and each job bounds itself (every fetch has
a deadline no later than the caller's), so an abandoned thread ends on its own soon after.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

POLL_S = 0.1  # how often a waiting caller looks at its stop condition


def run_until(
    jobs: Sequence[Callable[[], T]],
    workers: int,
    deadline: float,
    stopped: Callable[[], bool] = lambda: False,
    name: str = "arbor-worker",
) -> list[T | None]:
    """Each job's result, in order; None for a job not finished by `deadline` (monotonic) or `stopped()`.

    At most `workers` jobs run at a time, on daemon threads; jobs not started by then are skipped.
    A job that raises counts as unfinished (jobs are expected to return their own failures).
    """
    results: list[T | None] = [None] * len(jobs)
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(jobs)):
        pending.put(index)
    left = [len(jobs)]
    done = threading.Condition()

    def work() -> None:
        while time.monotonic() < deadline and not stopped():
            try:
                index = pending.get_nowait()
            except queue.Empty:
                return
            try:
                results[index] = jobs[index]()
            finally:
                with done:
                    left[0] -= 1
                    done.notify_all()

    for n in range(min(workers, len(jobs))):
        threading.Thread(target=work, name=f"{name}-{n}", daemon=True).start()
    with done:
        while left[0] > 0 and not stopped():
            wait_s = deadline - time.monotonic()
            if wait_s <= 0:
                break
            done.wait(min(POLL_S, wait_s))
    return list(results)
