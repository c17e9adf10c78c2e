"""Team installation: runs per minute with 1, 2 and 4 workers on one PostgreSQL, against SQLite in one process;
a killed worker's run resumed elsewhere; how fresh the Run page is with 10 sessions open.

Everything is real but the model: a throw-away PostgreSQL cluster (tests/postgres_cluster.py),
`python -m research_core worker` processes, the scripted stub LLM in its own process with a
fixed latency per call, and the document library (four documents) as the search backend.

* throughput: `--runs` runs of one question, queued at once, until all are completed; runs per
  minute = runs / minutes from the first queued to the last completed. The same load on SQLite is
  the workbench's single-process mode: `Runner.start_background` for each run in this process.
* kill -> resumed: one worker of two is SIGKILLed while it researches a run (mid-branch); the
  time until the run is `running` on the other worker, and until its first new step is
  checkpointed there. Workers run with `--stalled-after 10` (heartbeat every 3.3 s).
* step -> Run page: `bench.live_progress` with 10 readers polling every `POLL_SECONDS` while one
  worker researches a run; and, for comparison, while this process researches it on SQLite.

Benchmarks report; they never fail. Run: .venv/bin/python -m bench.team_throughput [--runs 8]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from bench.harness import machine
from bench.live_progress import epoch, watch
from research_core.configuration import LLMSettings, RunConfig, build_run_config
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot
from research_core.search.library import DocumentLibrary
from tests.postgres_cluster import PostgresCluster, find_bindir
from tests.reliability_support import CLIMATE_DOCS, CLIMATE_QUESTION, REPO, clean_env, stub_process
from ui.run_view import POLL_SECONDS

STALLED_AFTER_S = 10
FINISHED = ("completed", "completed_with_fallback")


def config() -> RunConfig:
    """The load: the climate question, hierarchical, approved without pausing, over the library."""
    return build_run_config(
        "general", CLIMATE_QUESTION, search_backends=["library"], auto_approve=True, mode="hierarchical"
    )


def runner_on(db: str | Path, llm_url: str) -> Runner:
    """A runner on `db` whose runs call the stub (its settings are stored with each run for the workers)."""
    llm = LLMSettings(provider="openai", base_url=llm_url, model="gpt-4o-mini", timeout_s=30, max_retries=0)
    return Runner(db, llm_settings=llm, api_key="sk-bench")


def add_documents(db: str | Path) -> None:
    """The library the runs search."""
    library = DocumentLibrary(db)
    for name, text in CLIMATE_DOCS.items():
        library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")


@contextmanager
def workers(db: str, count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` worker processes on `db` (concurrency 1 each), stopped with SIGTERM at the end."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "research_core", "worker", "--db", db, "--stalled-after", str(STALLED_AFTER_S)],
            cwd=REPO,
            env=clean_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(count)
    ]
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def wait_all(runner: Runner, run_ids: list[str], timeout_s: float) -> int:
    """Wait until every run has settled (or the timeout); how many completed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        statuses = {r.id: r.status for r in runner.runs()}
        if all(statuses.get(i) not in ("created", "queued", "running") for i in run_ids):
            break
        time.sleep(0.2)
    return sum(1 for r in runner.runs() if r.id in run_ids and r.status in FINISHED)


def throughput_postgres(cluster: PostgresCluster, llm_url: str, count: int, runs: int) -> dict[str, Any]:
    """Runs per minute with `count` workers on a fresh database."""
    db = cluster.create_database()
    add_documents(db)
    runner = runner_on(db, llm_url)
    with workers(db, count):
        time.sleep(3)  # the workers are up and listening
        started = time.monotonic()
        run_ids = [runner.enqueue(CLIMATE_QUESTION, config()) for _ in range(runs)]
        completed = wait_all(runner, run_ids, 600)
        minutes = (time.monotonic() - started) / 60
    return {"store": f"PostgreSQL, {count} worker(s)", "runs": runs, "completed": completed, "minutes": minutes}


def throughput_sqlite(folder: Path, llm_url: str, runs: int) -> dict[str, Any]:
    """The same load in one process on SQLite (the workbench's threads)."""
    db = folder / "arbor.db"
    add_documents(db)
    runner = runner_on(db, llm_url)
    started = time.monotonic()
    run_ids = [runner.start_background(CLIMATE_QUESTION, config()) for _ in range(runs)]
    completed = wait_all(runner, run_ids, 600)
    minutes = (time.monotonic() - started) / 60
    return {"store": "SQLite, one process", "runs": runs, "completed": completed, "minutes": minutes}


def mid_branch(snap: RunSnapshot) -> bool:
    """Findings checkpointed and a branch still being researched."""
    return bool(snap.findings) and any(b.status != "completed" for b in snap.branches)


def poll(predicate: Any, timeout_s: float, interval: float = 0.05) -> Any:
    """Poll until `predicate()` is truthy; its value, or None at the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return None


def kill_and_resume(cluster: PostgresCluster, llm_url: str) -> dict[str, Any]:
    """SIGKILL the worker researching a run; seconds until another worker runs it and checkpoints a new step."""
    db = cluster.create_database()
    add_documents(db)
    runner = runner_on(db, llm_url)
    with workers(db, 2) as procs:
        time.sleep(3)
        run_id = runner.enqueue(CLIMATE_QUESTION, config())
        if not poll(lambda: mid_branch(runner.snapshot(run_id)), 120):
            return {"error": "the run never reached mid-branch"}
        owner = runner.store.get(run_id).owner_pid
        victim = next(p for p in procs if p.pid == owner)
        os.killpg(victim.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        killed_wall = time.time()
        victim.wait()
        resumed = poll(lambda: (r := runner.store.get(run_id)).status == "running" and r.owner_pid != owner, 120)
        resumed_s = time.monotonic() - killed_at if resumed else None

        def new_step() -> bool:
            snap = runner.snapshot(run_id)
            return bool(snap.progress_at) and epoch(snap.progress_at) > killed_wall and snap.status == "running"

        stepped = poll(new_step, 120)
        step_s = time.monotonic() - killed_at if stepped else None
        done = wait_all(runner, [run_id], 300)
    return {"resumed_s": resumed_s, "first_new_step_s": step_s, "completed": done == 1}


def live_delay(cluster: PostgresCluster, llm_url: str, readers: int) -> dict[str, Any]:
    """Step checkpointed by a worker -> shown by `readers` Run pages polling every POLL_SECONDS."""
    db = cluster.create_database()
    add_documents(db)
    runner = runner_on(db, llm_url)
    with workers(db, 1):
        time.sleep(3)
        run_id = runner.enqueue(CLIMATE_QUESTION, config())
        delays = watch(runner, run_id, readers=readers, poll_s=POLL_SECONDS, timeout_s=300)
    return {"poll_s": POLL_SECONDS, **delays.summary()}


def live_delay_sqlite(folder: Path, llm_url: str, readers: int) -> dict[str, Any]:
    """The same on SQLite in one process (the run on the workbench's thread, as today), for comparison."""
    db = folder / "arbor.db"
    add_documents(db)
    runner = runner_on(db, llm_url)
    run_id = runner.start_background(CLIMATE_QUESTION, config())
    delays = watch(runner, run_id, readers=readers, poll_s=POLL_SECONDS, timeout_s=300)
    return {"poll_s": POLL_SECONDS, **delays.summary()}


def main() -> None:
    """Measure and print one JSON line per figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="runs per throughput measurement")
    parser.add_argument("--llm-latency", type=float, default=0.2, help="seconds per stub LLM call")
    parser.add_argument("--readers", type=int, default=10, help="Run pages open for the freshness measurement")
    parser.add_argument("--only", choices=["throughput", "kill", "live"], default=None)
    args = parser.parse_args()
    bindir = find_bindir()
    if bindir is None:
        sys.exit("PostgreSQL binaries not found (scripts/setup.sh installs postgresql-15)")
    print(json.dumps({"machine": machine(), "llm_latency_s": args.llm_latency}), flush=True)
    cluster = PostgresCluster(bindir)
    with ExitStack() as stack:
        cluster.start()
        stack.callback(cluster.stop)
        llm_url = stack.enter_context(stub_process({"*": args.llm_latency}))
        if args.only in (None, "throughput"):
            for count in (1, 2, 4):
                row = throughput_postgres(cluster, llm_url, count, args.runs)
                print(json.dumps({**row, "runs_per_min": round(row["completed"] / row["minutes"], 1)}), flush=True)
            with tempfile.TemporaryDirectory() as folder:
                row = throughput_sqlite(Path(folder), llm_url, args.runs)
            print(json.dumps({**row, "runs_per_min": round(row["completed"] / row["minutes"], 1)}), flush=True)
        if args.only in (None, "kill"):
            print(json.dumps({"kill_and_resume": kill_and_resume(cluster, llm_url)}), flush=True)
        if args.only in (None, "live"):
            print(json.dumps({"live_delay_postgres_worker": live_delay(cluster, llm_url, args.readers)}), flush=True)
            with tempfile.TemporaryDirectory() as folder:
                row = live_delay_sqlite(Path(folder), llm_url, args.readers)
            print(json.dumps({"live_delay_sqlite_one_process": row}), flush=True)


if __name__ == "__main__":
    main()
