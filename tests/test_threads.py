"""Which runs a Runner drives, and its background threads (`runs/threads.py`)."""

from __future__ import annotations

import logging
import threading

import pytest

from research_core.runs.errors import RunError
from research_core.runs.ownership import DRIVEN_HERE
from research_core.runs.threads import RunThreads

pytestmark = pytest.mark.timeout(30)


def test_a_run_is_driven_once_per_process_whichever_runner_asks() -> None:
    mine, other = RunThreads(), RunThreads()
    mine.claim("r1")
    try:
        assert mine.is_active("r1") and mine.any_active() and "r1" in DRIVEN_HERE
        with pytest.raises(RunError, match="already running"):
            mine.claim("r1")
        with pytest.raises(RunError, match="already running"):
            other.claim("r1")  # another Runner of the process (the UI keeps one per settings)
        assert not other.is_active("r1") and not other.any_active()
    finally:
        mine.release("r1")
    assert not mine.is_active("r1") and "r1" not in DRIVEN_HERE
    other.claim("r1")
    other.release("r1")
    other.release("r1")  # releasing twice is harmless


def test_a_background_run_holds_its_claim_until_its_target_returns() -> None:
    threads = RunThreads()
    started, finish = threading.Event(), threading.Event()

    def target() -> None:
        started.set()
        finish.wait(10)

    threads.spawn("r2", target)
    assert started.wait(10)
    assert threads.is_active("r2")
    with pytest.raises(RunError):
        threads.claim("r2")  # a second click while it runs
    finish.set()
    threads.join("r2", timeout=10)
    assert not threads.is_active("r2") and not threads.any_active() and "r2" not in DRIVEN_HERE


def test_a_failing_background_run_is_logged_and_released(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    threads = RunThreads()

    def refused() -> None:
        raise RunError("Run r3 is being driven by another Arbor process (pid 1).")

    def crashed() -> None:
        raise ValueError("a bug")

    threads.spawn("r3", refused)
    threads.join("r3", timeout=10)
    threads.spawn("r4", crashed)
    threads.join("r4", timeout=10)
    warning, crash = (r for r in caplog.records if r.name == "research_core.runs.threads")
    assert warning.levelno == logging.WARNING and "another Arbor process" in warning.getMessage()
    assert crash.levelno == logging.ERROR and crash.exc_info is not None
    assert not threads.any_active()


def test_a_run_claimed_elsewhere_is_not_spawned() -> None:
    threads = RunThreads()
    threads.claim("r5")
    try:
        with pytest.raises(RunError):
            threads.spawn("r5", lambda: None)
    finally:
        threads.release("r5")


def test_joining_a_run_without_a_thread_returns_at_once() -> None:
    RunThreads().join("never-spawned", timeout=0.1)
