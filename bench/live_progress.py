"""How fresh the Run page's data is: from a step checkpointed (by a worker, anywhere) to a session's poll showing it.

Each reader is one open Run page: every `poll_s` seconds (the page's `POLL_SECONDS`) it reads
what the page's polling fragment reads, `run_view.shown_snapshot(runner.snapshot(run_id))`, on
one Runner shared by all readers (as the workbench's server process shares one). A snapshot
says when the newest step it shows was checkpointed (`RunSnapshot.progress_at`). Afterwards every
checkpoint of the run (all namespaces: the run's and each branch chain's) is listed with its
time; a checkpoint's delay for a reader is the time from it to that reader's first poll whose
newest step is at least as new (a read after the checkpoint was written shows it). The clocks
of the worker and the readers must agree: the same machine, or NTP.
"""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

from research_core.db import open_checkpointer
from research_core.runs.runner import Runner
from research_core.runs.waiting import UNSETTLED
from ui.run_view import shown_snapshot


@dataclass
class Reader:
    """One open Run page: (time read, newest step shown) per poll, and how long each poll's read took."""

    polls: list[tuple[float, float]] = field(default_factory=list)
    read_s: list[float] = field(default_factory=list)

    def first_showing(self, checkpoint_t: float) -> float | None:
        """When this reader first showed a step at least as new as `checkpoint_t`; None if it never did."""
        return next((seen for seen, newest in self.polls if newest >= checkpoint_t), None)


def epoch(iso: str) -> float:
    """Seconds since the epoch of a checkpoint's ISO time."""
    return datetime.fromisoformat(iso).timestamp()


def read_like_a_page(runner: Runner, run_id: str, reader: Reader, poll_s: float, done: threading.Event) -> None:
    """Poll as the Run page's fragment does until this reader sees the run settle, or `done` is set."""
    while not done.is_set():
        started = time.monotonic()
        snap = shown_snapshot(runner.snapshot(run_id))
        reader.read_s.append(time.monotonic() - started)
        reader.polls.append((time.time(), epoch(snap.progress_at) if snap.progress_at else 0.0))
        if snap.status not in UNSETTLED:
            return
        done.wait(max(0.0, poll_s - (time.monotonic() - started)))


def checkpoint_times(runner: Runner, run_id: str) -> list[float]:
    """The time of every checkpoint of the run, in all its namespaces, oldest first."""
    with open_checkpointer(runner.location) as saver:
        return sorted(epoch(t.checkpoint["ts"]) for t in saver.list({"configurable": {"thread_id": run_id}}))


@dataclass(frozen=True)
class LiveDelays:
    """Step checkpointed -> shown, over every (checkpoint, reader) pair, and the readers' read times."""

    delays_s: list[float]
    read_s: list[float]
    readers: int
    checkpoints: int
    cpu_cores: float  # CPU time of this process while watching / wall time: what the readers (and a run here) used

    def quantile(self, q: float) -> float:
        """The q-quantile (0..1) of the delays."""
        ordered = sorted(self.delays_s)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    def summary(self) -> dict[str, float | int]:
        """Median, p95 and max delay, median and p95 read time, in seconds."""
        reads = sorted(self.read_s)
        return {
            "readers": self.readers,
            "checkpoints": self.checkpoints,
            "median_s": round(statistics.median(self.delays_s), 3) if self.delays_s else float("nan"),
            "p95_s": round(self.quantile(0.95), 3),
            "max_s": round(max(self.delays_s), 3) if self.delays_s else float("nan"),
            "read_median_s": round(statistics.median(reads), 3) if reads else float("nan"),
            "read_p95_s": round(reads[min(len(reads) - 1, int(0.95 * len(reads)))], 3) if reads else float("nan"),
            "cpu_cores": round(self.cpu_cores, 2),
        }


def watch(runner: Runner, run_id: str, *, readers: int, poll_s: float, timeout_s: float) -> LiveDelays:
    """Open `readers` Run pages on the run until it settles; the delays of every checkpoint made while they watched."""
    done = threading.Event()
    pages = [Reader() for _ in range(readers)]
    threads = [
        threading.Thread(target=read_like_a_page, args=(runner, run_id, page, poll_s, done), daemon=True)
        for page in pages
    ]
    watching_from, cpu_from, wall_from = time.time(), time.process_time(), time.monotonic()
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    done.set()
    for thread in threads:
        thread.join(30)
    cpu_cores = (time.process_time() - cpu_from) / max(1e-9, time.monotonic() - wall_from)
    made = [t for t in checkpoint_times(runner, run_id) if t >= watching_from]
    delays = [seen - t for t in made for page in pages if (seen := page.first_showing(t)) is not None and seen >= t]
    return LiveDelays(delays, [r for page in pages for r in page.read_s], readers, len(made), cpu_cores)
