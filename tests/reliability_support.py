"""Helpers for the crash and concurrency tests: the stub LLM and the CLI as real subprocesses.

The stub is tests/fakes/llm_server.py run in its own Python process (with per-task latency,
which its standalone entry point does not offer); the CLI is `python -m research_core`.
Both inherit an environment without OPENAI_* variables, so nothing reaches a real endpoint.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

CLIMATE_QUESTION = "Explain the causes, effects, and solutions to climate change"

CLIMATE_DOCS = {
    "causes.md": "# Causes of climate change\n\nBurning coal, oil and gas releases carbon dioxide, the main cause of "
    "climate change. Deforestation and agriculture add methane and further carbon dioxide.\n",
    "effects.md": "# Effects of climate change\n\nClimate change raises sea levels, intensifies heatwaves and "
    "droughts, and shifts rainfall; the effects fall hardest on poor regions.\n",
    "solutions.md": "# Solutions to climate change\n\nSolutions include renewable electricity, efficient buildings, "
    "electric transport, carbon pricing and protecting forests; adaptation reduces the damage.\n",
    "facts.txt": "Core facts: the planet has warmed about 1.2 degrees since pre-industrial times. Experts recommend "
    "cutting emissions quickly; practitioners compare options by cost and evidence.\n",
}

_STUB = """
import json, sys, threading
from tests.fakes.llm_server import ScriptedLLM, serve
latency = json.loads(sys.argv[1])
scripted = ScriptedLLM(latency_s=latency.pop("*", 0.0), latency_by_task=latency)
with serve(scripted) as (url, _):
    print(url, flush=True)
    threading.Event().wait()
"""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a subprocess: no OPENAI_* settings, the repository importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARBOR_"))}
    env["PYTHONPATH"] = str(REPO)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"  # a native crash prints every thread's stack, so its output shows where
    env.update(extra)
    return env


@contextmanager
def stub_process(latency: dict[str, float] | None = None) -> Iterator[str]:
    """The scripted LLM server in a subprocess; yields its base URL. latency: {"*": all, task: s}."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _STUB, json.dumps(latency or {})],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = (proc.stdout.readline() if proc.stdout else "").strip()
        if not url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the stub did not start: {proc.stderr.read() if proc.stderr else ''}")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cli_args(command: list[str], db: Path, url: str | None = None, search: str | None = None) -> list[str]:
    """`python -m research_core COMMAND ... --db DB [--llm openai --llm-base-url URL] [--search ...]`."""
    args = [sys.executable, "-m", "research_core", *command, "--db", str(db)]
    if url is not None:
        args += ["--llm", "openai", "--llm-base-url", url, "--llm-model", "gpt-4o-mini"]
    if search is not None:
        args += ["--search", search]
    return args


def run_cli(
    command: list[str], db: Path, url: str | None = None, search: str | None = None, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run the CLI to completion and return its result (stdout, stderr, returncode)."""
    return subprocess.run(
        cli_args(command, db, url, search),
        cwd=REPO,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def spawn_cli(command: list[str], db: Path, url: str, search: str | None = None, **env: str) -> subprocess.Popen:
    """Start the CLI in the background (its own process group, output to pipes)."""
    return subprocess.Popen(
        cli_args(command, db, url, search),
        cwd=REPO,
        env=clean_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def kill_hard(proc: subprocess.Popen) -> None:
    """SIGKILL the process and reap it (a zombie would still look alive to the runner)."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


def index_documents(db: Path, folder: Path, docs: dict[str, str] = CLIMATE_DOCS) -> None:
    """Write `docs` into `folder` and add them with `python -m research_core library add`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(str(folder / name))
    done = run_cli(["library", "add", *paths], db)
    assert done.returncode == 0, done.stderr


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Poll until `predicate()` is truthy; return its value or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def checkpoint_count(db: Path, run_id: str) -> int:
    """How many checkpoints the run has: the input and the first step's make 2, each finished step adds one."""
    conn = sqlite3.connect(str(db), timeout=30)
    try:
        return conn.execute("select count(*) from checkpoints where thread_id = ?", [run_id]).fetchone()[0]
    except sqlite3.OperationalError:  # the checkpoint tables do not exist yet
        return 0
    finally:
        conn.close()


def status_of(db: Path, run_id: str) -> str:
    """The run's status as its record in `db` (a SQLite file) says."""
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute("select status from runs where id = ?", [run_id]).fetchone()[0]
    finally:
        conn.close()
