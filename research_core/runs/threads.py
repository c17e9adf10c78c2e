"""Which runs a Runner is driving, and the background threads driving them (the workbench's runs)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from research_core.runs.errors import RunError
from research_core.runs.ownership import DRIVEN_HERE

logger = logging.getLogger(__name__)


class RunThreads:
    """The runs one Runner drives, in the caller's thread or on background threads it owns.

    A run is reserved here and in `DRIVEN_HERE` (shared by every Runner of the process; the UI
    keeps one per settings) before it is driven, so neither a page rerun, a second click nor
    another Runner's resume drives it twice.
    """

    def __init__(self) -> None:
        self._threads: dict[str, threading.Thread] = {}
        self._busy: set[str] = set()
        self._lock = threading.Lock()

    def claim(self, run_id: str) -> None:
        """Reserve the run for one drive in this process; raises RunError when it is already being driven."""
        with self._lock:
            if run_id in self._busy or not DRIVEN_HERE.add(run_id):
                raise RunError(f"Run {run_id} is already running.")
            self._busy.add(run_id)

    def release(self, run_id: str) -> None:
        """End the reservation of a drive (no error when there was none)."""
        with self._lock:
            self._busy.discard(run_id)
            DRIVEN_HERE.discard(run_id)

    def is_active(self, run_id: str) -> bool:
        """True while the run is reserved here or its background thread is alive."""
        with self._lock:
            return run_id in self._busy or (run_id in self._threads and self._threads[run_id].is_alive())

    def any_active(self) -> bool:
        """True while any run is reserved here or any background thread is alive."""
        with self._lock:
            return bool(self._busy) or any(t.is_alive() for t in self._threads.values())

    def spawn(self, run_id: str, target: Callable[[], Any]) -> None:
        """Run `target` (which drives `run_id` as already claimed) on a background thread.

        The run is reserved here, before the thread starts, so a drive asked for in between (another
        Runner's resume, a second click) is refused instead of taking the run from under the thread.
        The thread releases it when `target` returns or fails; failures are logged.
        """

        def body() -> None:
            try:
                target()
            except RunError as exc:
                logger.warning("background run %s: %s", run_id, exc)
            except Exception:
                logger.exception("background run %s crashed", run_id)
            finally:
                self.release(run_id)

        self.claim(run_id)
        try:
            thread = threading.Thread(target=body, name=f"arbor-run-{run_id}", daemon=True)
            with self._lock:
                self._threads[run_id] = thread
            thread.start()
        except BaseException:
            self.release(run_id)
            raise

    def join(self, run_id: str, timeout: float | None = None) -> None:
        """Wait until the run's background thread (if it has one) ends, or `timeout` seconds pass."""
        with self._lock:
            thread = self._threads.get(run_id)
        if thread is not None:
            thread.join(timeout)
