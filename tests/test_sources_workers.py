"""research_core.sources.workers: jobs on daemon threads, abandoned at a deadline or a stop."""

from __future__ import annotations

import threading
import time

from research_core.sources.workers import run_until


def test_results_come_back_in_order_with_at_most_the_workers_at_once() -> None:
    running = 0
    peak = 0
    lock = threading.Lock()

    def job(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        return n * n

    results = run_until([lambda n=n: job(n) for n in range(6)], 2, time.monotonic() + 5)
    assert results == [0, 1, 4, 9, 16, 25] and peak == 2


def test_a_late_job_is_none_and_its_thread_does_not_block_exit() -> None:
    release = threading.Event()
    started = time.monotonic()
    results = run_until(
        [lambda: "quick", lambda: release.wait(10) and "late"], 2, time.monotonic() + 0.3, name="t-late"
    )
    assert results == ["quick", None] and time.monotonic() - started < 1.0
    assert all(t.daemon for t in threading.enumerate() if t.name.startswith("t-late"))
    release.set()


def test_a_stop_ends_the_wait() -> None:
    stop = threading.Event()
    threading.Timer(0.2, stop.set).start()
    started = time.monotonic()
    results = run_until([lambda: time.sleep(3)], 1, time.monotonic() + 10, stop.is_set)
    assert results == [None] and time.monotonic() - started < 1.0
