"""Shared pieces of the benchmarks: a timed stub LLM server, a slow fixture search, fixed plans.

The stub is tests/fakes/llm_server.py (imported, not copied) behind a handler that records
when each request arrives and when its answer is sent, so a benchmark can tell the time the
engine waited on the LLM from the time it spent on its own. The search backend is the test
fixture corpus behind a fixed sleep, recording its intervals the same way.

The benchmarks run the stub in its own process (`StubLLMProcess`), one for all their runs, as a
real LLM server would be: on a thread of the benchmark's process its request handling would
compete with the engine for the interpreter lock, and a new server per run would make every run
pay the client's one-time connection setup (a new base URL each time).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from research_core.configuration import LLMSettings, RunConfig, build_run_config
from research_core.runs.heap import freeze_startup_heap
from research_core.runs.runner import Runner
from research_core.schemas import Source
from tests.fakes.llm_server import ScriptedHandler, ScriptedLLM, ScriptedServer, default_reply, numbered_passages
from tests.fakes.search import FixtureSearch

Interval = tuple[float, float]


# ---- intervals ---------------------------------------------------------------------------


def union_length(intervals: list[Interval]) -> float:
    """Total length covered by at least one interval."""
    total = 0.0
    end = float("-inf")
    for a, b in sorted(intervals):
        if b <= end:
            continue
        total += b - max(a, end)
        end = b
    return total


def clipped(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    """The parts of `intervals` inside [lo, hi]."""
    return [(max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi]


@dataclass
class Recorder:
    """Thread-safe list of (start, end, label) intervals on the perf_counter clock."""

    items: list[tuple[float, float, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, start: float, end: float, label: str) -> None:
        """Record one interval."""
        with self._lock:
            self.items.append((start, end, label))

    def intervals(self) -> list[Interval]:
        """All intervals without labels."""
        with self._lock:
            return [(a, b) for a, b, _ in self.items]

    def clear(self) -> None:
        """Forget everything recorded."""
        with self._lock:
            self.items.clear()


# ---- the stub LLM server with timing -----------------------------------------------------


class _TimedServer(ScriptedServer):
    recorder: Recorder


class _TimedHandler(ScriptedHandler):
    server: _TimedServer
    # Keep connections alive as real LLM servers do (uvicorn, llama.cpp, the OpenAI API); with the
    # HTTP/1.0 default every call would pay a TCP connect the engine never pays in production.
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle's algorithm on a kept-alive connection the
    # body waits for the client's delayed ACK (about 40 ms per call).
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        started = time.perf_counter()
        try:
            super().do_POST()
        finally:
            self.server.recorder.add(started, time.perf_counter(), self.headers.get("X-Arbor-Task", "?"))


class StubLLMProcess:
    """The timed stub LLM server in a child process, shared by every run of a benchmark.

    `use(factory, *args, latency_s=...)` swaps in a new script (`factory(*args)`, built in the
    child, so it must be a module-level function) and returns the base URL, which stays the same
    for the life of the process; `collect()` returns the calls and server-side intervals since
    then. Intervals use `time.perf_counter()`, the system-wide monotonic clock on Linux, so they
    line up with the benchmark's own.
    """

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_stub_child, args=(child,), daemon=True, name="arbor-bench-stub")
        self._proc.start()
        self.url = f"http://127.0.0.1:{self._conn.recv()}/v1"

    def use(self, factory: Callable[..., dict[str, Any]] | None = None, *args: Any, latency_s: float = 0.0) -> str:
        """Answer with `factory(*args)` (None: the default replies) after `latency_s` per call."""
        self._conn.send(("use", factory, args, latency_s))
        self._conn.recv()
        return self.url

    def collect(self) -> tuple[list[tuple[str, dict]], list[tuple[float, float, str]]]:
        """The (task, request body) of every call and every (start, end, task) since `use`."""
        self._conn.send(("collect",))
        return self._conn.recv()

    def close(self) -> None:
        """Stop the child process."""
        if self._proc.is_alive():
            self._conn.send(("stop",))
            self._proc.join(10)
        if self._proc.is_alive():
            self._proc.kill()

    def __enter__(self) -> StubLLMProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _stub_child(conn: Any) -> None:
    server = _TimedServer(("127.0.0.1", 0), _TimedHandler)
    server.scripted = ScriptedLLM()
    server.recorder = Recorder()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    conn.send(server.server_address[1])
    while True:
        message = conn.recv()
        if message[0] == "use":
            _, factory, args, latency = message
            server.scripted = ScriptedLLM(script=factory(*args) if factory else {}, latency_s=latency)
            server.recorder = Recorder()
            conn.send(True)
        elif message[0] == "collect":
            calls = server.scripted.recorded_calls()
            conn.send((calls, list(server.recorder.items)))
        else:
            server.shutdown()
            return


# ---- scripted answers of realistic length ------------------------------------------------

_FILLER = (
    "The source states this directly and gives figures for it; other sources in the list agree on the "
    "direction of the effect while differing on its size."
)


def _tag(text: str, name: str) -> str:
    m = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", text, re.S)
    return m.group(1).strip() if m else ""


def _user(body: dict) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "user")


def extract_reply(body: dict) -> str:
    """Up to three findings per call, each stating the first 40 words of its source's passage.

    Findings state what their source says, so the engine's support and topic checks keep them (a
    finding its source does not support is dropped, as with a real model); the same source met
    again in a later iteration gives the same finding, which the engine merges. Their confidences
    (0.9, 0.6, 0.5) average below the default stop threshold of 0.7, so a branch runs its minimum
    iterations instead of stopping after the first one.
    """
    passages = numbered_passages(_tag(_user(body), "sources"))
    findings = [
        {"text": " ".join(passage.split()[:40]), "confidence": confidence, "sources": [n]}
        for (n, passage), confidence in zip(passages[:3], (0.9, 0.6, 0.5), strict=False)
        if passage
    ]
    return json.dumps({"findings": findings, "reasoning": "Kept the sources that address the sub-question."})


def synthesis_reply(body: dict) -> str:
    """A branch answer of about 180 words citing the first sources."""
    numbers = re.findall(r"^\[(\d+)\]", _tag(_user(body), "sources"), re.M)[:3] or ["1"]
    paragraph = " ".join(f"{_FILLER} [{n}]." for n in numbers)
    return f"{paragraph}\n\n{paragraph}\n\nCaveats: the sources are recent and partly overlapping."


def meta_reply(body: dict) -> str:
    """A report of about 500 words with the usual sections."""
    numbers = sorted(set(re.findall(r"\[(\d+)\]", _tag(_user(body), "sub_answers"))), key=int)[:6] or ["1"]
    body_text = " ".join(f"{_FILLER} [{n}]." for n in numbers)
    return (
        f"The research answers the question from several angles. {body_text}\n\n## Findings\n{body_text}\n\n"
        f"{body_text}\n\n## Conclusion\n{body_text}\n\n## Limitations\nThe evidence is from a fixed corpus."
    )


def realistic_script() -> dict[str, Any]:
    """Per-task replies: the stub's defaults, with longer findings and syntheses."""
    return {
        "extract_findings": extract_reply,
        "synthesize_branch": synthesis_reply,
        "meta_synthesis": meta_reply,
    }


# ---- search ------------------------------------------------------------------------------


class SlowSearch(FixtureSearch):
    """The fixture corpus behind a fixed latency; records every call's interval."""

    def __init__(self, latency_s: float, recorder: Recorder | None = None, name: str = "fixture"):
        super().__init__(name=name)
        self.latency_s = latency_s
        self.recorder = recorder or Recorder()

    def search(self, query: str, max_results: int) -> list[Source]:
        """Sleep, then answer from the corpus."""
        started = time.perf_counter()
        try:
            time.sleep(self.latency_s)
            return super().search(query, max_results)
        finally:
            self.recorder.add(started, time.perf_counter(), "search")


# ---- runs --------------------------------------------------------------------------------


def make_runner(db: Path, url: str, backends: list, timeout_s: float = 60.0) -> Runner:
    """A runner on a real SQLite file talking to the stub over HTTP (after freezing the startup
    heap, as the CLI and the workbench do before their first runner)."""
    freeze_startup_heap()
    llm = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=timeout_s, max_retries=0)
    return Runner(db, llm_settings=llm, api_key="sk-bench", backends=backends)


def fixed_plan(question: str, n: int, priorities: list[float] | None = None) -> dict:
    """A plan of `n` top-level branches (what `run --plan` takes)."""
    prios = priorities or [0.8] * n
    return {
        "question": question,
        "strategy": "multi-faceted",
        "sub_questions": [
            {"id": f"sq_{i:03d}", "question_text": f"Aspect {i} of: {question}", "priority": prios[i - 1]}
            for i in range(1, n + 1)
        ],
    }


def known_call_graph_config(parallel: int, iterations: int, branches: int, **extra: Any) -> RunConfig:
    """A config whose call graph is fixed: every branch runs exactly `iterations` iterations.

    No adaptive plan, coverage check, citation verification or drill-down (max_depth=1); the
    stop rules can never fire early (findings_for_stop and confidence_for_stop out of reach).
    """
    values: dict[str, Any] = {
        "mode": "hierarchical",
        "auto_approve": True,
        "parallel": parallel,
        "search_backends": ["fixture"],
        "max_results_per_query": 5,
        "adaptive_plan": False,
        "coverage_check": False,
        "verify_citations": False,
        "max_depth": 1,
        "sub_question_min_iterations": iterations,
        "sub_question_max_iterations": iterations,
        "max_iterations": branches * iterations + branches + 2,
        "max_sub_questions": max(branches, 5),
        "max_total_sub_questions": max(branches, 8),
        "findings_for_stop": 1000,
        "confidence_for_stop": 1.0,
        "max_total_cost_usd": 100.0,
        "read_pages": False,  # the fixture corpus's URLs are not pages to fetch
    }
    values.update(extra)
    return build_run_config("general", **values)


def checkpoint_bytes(db: Path, run_id: str) -> dict[str, int]:
    """Bytes the run's thread holds in the checkpoints and writes tables, row counts, the largest checkpoint."""
    conn = sqlite3.connect(str(db))
    try:
        cp_rows, cp_bytes, cp_max = conn.execute(
            "select count(*), coalesce(sum(length(checkpoint) + length(metadata)), 0), "
            "coalesce(max(length(checkpoint) + length(metadata)), 0) from checkpoints where thread_id = ?",
            [run_id],
        ).fetchone()
        w_rows, w_bytes = conn.execute(
            "select count(*), coalesce(sum(length(value)), 0) from writes where thread_id = ?", [run_id]
        ).fetchone()
    finally:
        conn.close()
    return {
        "checkpoints": cp_rows,
        "checkpoint_bytes": cp_bytes,
        "largest_checkpoint_bytes": cp_max,
        "writes": w_rows,
        "write_bytes": w_bytes,
    }


# ---- machine -----------------------------------------------------------------------------


def machine() -> str:
    """nproc, CPU model, RAM, Python and the load average (the machine may be shared), for the README."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        ram = f"{kb / 1024 / 1024:.0f} GB"
    except (OSError, ValueError, IndexError):
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{os.cpu_count()} cores, {cpu}, {ram} RAM, Python {platform.python_version()}, {platform.system()}; "
        f"load average at start {load}"
    )


__all__ = [
    "Recorder",
    "ScriptedLLM",
    "SlowSearch",
    "StubLLMProcess",
    "checkpoint_bytes",
    "clipped",
    "default_reply",
    "fixed_plan",
    "known_call_graph_config",
    "machine",
    "make_runner",
    "realistic_script",
    "union_length",
]
