"""Engine overhead: the wall time during which no LLM or search call was in flight.

Method
------
* LLM calls are timed on the stub server's side (request body read -> answer written), so
  everything on the client side of the socket (prompt rendering, LangChain and the OpenAI
  SDK, HTTP, JSON parsing, pydantic validation) counts as engine time. That is the strict
  figure. The lenient figure times the calls around `LLMClient._invoke` instead, so the
  client libraries count as "in flight"; the difference is the LLM client stack's share.
* The stub runs in its own process, one for all runs (`harness.StubLLMProcess`), and an untimed
  warm-up run first pays the process's one-time client setup (imports, TLS trust store).
* Search calls are timed by the backend wrapper (`SlowSearch`, a fixed sleep).
* engine time = run wall time - length of the union of all in-flight intervals.
* Per node: every node function is wrapped (patched into `research_core.graph` before the
  graph is built) and timed; its own time is its wall time less the in-flight time inside
  it. What lies outside every node (checkpoint writes, channel reducers, scheduling,
  the runner before and after the graph) is reported as "framework + runner"; the time
  inside `SqliteSaver.put` / `put_writes` is reported on its own.
* A graph step is one LangGraph superstep: one row of the `checkpoints` table.
* Checkpoint size: bytes of the thread's rows in `checkpoints` (checkpoint + metadata blobs)
  and `writes` (value blobs), on a real SQLite file in WAL mode.

Run: .venv/bin/python -m bench.engine_overhead [--llm-latency 1.0] [--search-latency 0.5]
"""

from __future__ import annotations

import argparse
import functools
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

import research_core.graph as graph_module
import research_core.research.chain as chain_module
from bench.harness import (
    Recorder,
    SlowSearch,
    StubLLMProcess,
    checkpoint_bytes,
    clipped,
    fixed_plan,
    known_call_graph_config,
    machine,
    make_runner,
    realistic_script,
    union_length,
)
from research_core.configuration import build_run_config

NODES = [
    "classify_question",
    "decompose_question",
    "review_plan",
    "allocate_budget",
    "coordinate",
    "research_step",
    "synthesize_branch",
    "revise_plan",
    "assess_coverage",
    "meta_synthesize",
]

HIER_Q = "Explain the causes, effects, and solutions to climate change"
FLAT_Q = "What is quantum computing?"


class Instruments:
    """Node, checkpointer and client-side LLM timings of one process (one run at a time)."""

    def __init__(self) -> None:
        self.nodes = Recorder()
        self.saver = Recorder()
        self.client = Recorder()
        self._installed = False

    def install(self) -> None:
        """Patch the node functions in research_core.graph and the SqliteSaver writes."""
        if self._installed:
            return
        self._installed = True
        for name in NODES:
            # research steps (and most branch answers) run inside each branch's chain subgraph,
            # which calls them by module name
            for module in (graph_module, chain_module):
                if hasattr(module, name):
                    setattr(module, name, self._timed(getattr(module, name), self.nodes, name))
        for meth in ("put", "put_writes"):
            setattr(SqliteSaver, meth, self._timed(getattr(SqliteSaver, meth), self.saver, meth))

    @staticmethod
    def _timed(fn: Callable, recorder: Recorder, label: str) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                recorder.add(started, time.perf_counter(), label)

        return wrapper

    def wrap_client(self, runner: Any) -> None:
        """Time LLM calls around LLMClient._invoke (the lenient figure)."""
        llm = runner.llm
        llm._invoke = self._timed(llm._invoke, self.client, "llm")

    def clear(self) -> None:
        """Forget the previous run's timings."""
        for r in (self.nodes, self.saver, self.client):
            r.clear()


def measure(
    stub: StubLLMProcess,
    label: str,
    question: str,
    config: Any,
    plan: dict | None,
    llm: float,
    search: float,
    inst: Instruments,
) -> dict[str, Any]:
    """Run once and break its wall time down."""
    inst.clear()
    server_rec, search_rec = Recorder(), Recorder()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        url = stub.use(realistic_script, latency_s=llm)
        runner = make_runner(db, url, [SlowSearch(search, search_rec)])
        inst.wrap_client(runner)
        t0 = time.perf_counter()
        snap = runner.start(question, config, plan=plan)
        t1 = time.perf_counter()
        calls, server_items = stub.collect()
        for start, end, task in server_items:
            server_rec.add(start, end, task)
        assert snap.status in ("completed", "completed_with_fallback"), (snap.status, snap.error)
        sizes = checkpoint_bytes(db, snap.run_id)
        db_bytes = sum(p.stat().st_size for p in Path(tmp).glob("bench.db*"))
    wall = t1 - t0
    strict_in_flight = clipped(server_rec.intervals() + search_rec.intervals(), t0, t1)
    lenient_in_flight = clipped(inst.client.intervals() + search_rec.intervals(), t0, t1)
    engine_strict = wall - union_length(strict_in_flight)
    engine_lenient = wall - union_length(lenient_in_flight)
    per_node: dict[str, dict[str, float]] = defaultdict(lambda: {"calls": 0, "wall": 0.0, "own": 0.0})
    node_intervals = []
    for a, b, name in inst.nodes.items:
        row = per_node[name]
        row["calls"] += 1
        row["wall"] += b - a
        row["own"] += (b - a) - union_length(clipped(strict_in_flight, a, b))
        node_intervals.append((a, b))
    outside_nodes = wall - union_length(clipped(node_intervals, t0, t1))
    saver_time = sum(b - a for a, b, _ in inst.saver.items)
    steps = sizes["checkpoints"]
    return {
        "label": label,
        "wall_s": wall,
        "llm_calls": len(calls),
        "searches": len(search_rec.items),
        "steps": steps,
        "node_calls": len(inst.nodes.items),
        "engine_strict_s": engine_strict,
        "engine_lenient_s": engine_lenient,
        "outside_nodes_s": outside_nodes,
        "checkpointer_s": saver_time,
        "per_node": dict(per_node),
        "db_bytes": db_bytes,
        **sizes,
    }


def print_run(r: dict[str, Any]) -> None:
    """One run's breakdown as Markdown."""
    print(f"\n### {r['label']}\n")
    print(
        f"wall {r['wall_s']:.2f} s, {r['llm_calls']} LLM calls, {r['searches']} searches, {r['steps']} graph steps "
        f"(checkpoints), {r['node_calls']} node executions\n"
    )
    print("| measure | total ms | ms per graph step | % of wall |")
    print("|---|---:|---:|---:|")
    for name, key in [
        ("engine time, strict (LLM timed at the server)", "engine_strict_s"),
        ("engine time, lenient (LLM timed around the client call)", "engine_lenient_s"),
        ("  of which outside any node (framework + runner)", "outside_nodes_s"),
        ("  time inside SqliteSaver.put / put_writes (overlaps calls in flight at parallel > 1)", "checkpointer_s"),
    ]:
        v = r[key]
        print(f"| {name} | {1000 * v:.0f} | {1000 * v / r['steps']:.1f} | {100 * v / r['wall_s']:.2f}% |")
    print("\n| node | executions | own ms (wall less in-flight) | own ms per execution |")
    print("|---|---:|---:|---:|")
    for name, row in sorted(r["per_node"].items(), key=lambda kv: -kv[1]["own"]):
        print(f"| {name} | {row['calls']} | {1000 * row['own']:.0f} | {1000 * row['own'] / row['calls']:.1f} |")
    kb = 1024
    print(
        f"\nCheckpoint storage for the run: {r['checkpoints']} checkpoint rows, "
        f"{r['checkpoint_bytes'] / kb:.0f} KiB (the largest, the final state, {r['largest_checkpoint_bytes'] / kb:.0f} "
        f"KiB); {r['writes']} write rows, {r['write_bytes'] / kb:.0f} KiB; "
        f"database files {r['db_bytes'] / kb:.0f} KiB."
    )


def client_stack(stub: StubLLMProcess, repeats: int = 30) -> dict[str, float]:
    """Median ms of one call to the zero-latency stub through each layer of the LLM client stack."""
    import statistics

    import httpx
    import openai

    from research_core.configuration import LLMSettings
    from research_core.llm.client import LLMClient
    from research_core.schemas import QueryPlanOutput

    def median_ms(fn: Callable[[], Any]) -> float:
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            fn()
            times.append(time.perf_counter() - started)
        return 1000 * statistics.median(times)

    user = "<sub_question>What is React?</sub_question>"
    headers = {"X-Arbor-Task": "plan_queries"}
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": user}]}
    url = stub.use()
    http = httpx.Client()
    sdk = openai.OpenAI(base_url=url, api_key="sk-bench", max_retries=0)
    llm = LLMClient(LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", max_retries=0))
    out = {
        "httpx keep-alive POST": median_ms(lambda: http.post(f"{url}/chat/completions", json=body, headers=headers)),
        "OpenAI SDK chat.completions.create": median_ms(
            lambda: sdk.chat.completions.create(model="gpt-4o-mini", messages=body["messages"], extra_headers=headers)
        ),
        "LLMClient.structured (LangChain ChatOpenAI + validation)": median_ms(
            lambda: llm.structured("plan_queries", QueryPlanOutput, "system", user, node="bench")
        ),
    }
    http.close()
    return out


def main() -> None:
    """Measure a few runs and print their breakdowns."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-latency", type=float, default=1.0)
    parser.add_argument("--search-latency", type=float, default=0.5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    llm, search = args.llm_latency, args.search_latency
    inst = Instruments()
    inst.install()
    print(f"# engine_overhead  {time.strftime('%Y-%m-%d %H:%M')}  {machine()}")
    print(f"# LLM {llm}s per call (stub), search {search}s per call (fixture), SQLite checkpointer on a file")
    runs = [
        (
            "hierarchical, 4 branches x 3 iterations, parallel 1",
            HIER_Q,
            known_call_graph_config(1, 3, 4),
            fixed_plan(HIER_Q, 4),
        ),
        (
            "hierarchical, 4 branches x 3 iterations, parallel 4",
            HIER_Q,
            known_call_graph_config(4, 3, 4),
            fixed_plan(HIER_Q, 4),
        ),
        (
            "hierarchical, 8 branches x 3 iterations, parallel 4",
            HIER_Q,
            known_call_graph_config(4, 3, 8),
            fixed_plan(HIER_Q, 8),
        ),
        (
            "hierarchical, default config (LLM decomposition, revisions, coverage, citation checks), parallel 2",
            HIER_Q,
            build_run_config(
                "general", search_backends=["fixture"], read_pages=False, auto_approve=True, mode="hierarchical"
            ),
            None,
        ),
        (
            "flat, 10 iterations",
            FLAT_Q,
            build_run_config(
                "general",
                search_backends=["fixture"],
                read_pages=False,
                mode="flat",
                max_iterations=11,
                findings_for_stop=1000,
                confidence_for_stop=1.0,
                verify_citations=False,
            ),
            None,
        ),
    ]
    print("\n### One LLM call through the client stack (zero-latency stub, median of 30)\n")
    print("| layer | ms per call |")
    print("|---|---:|")
    results = []
    with StubLLMProcess() as stub:
        for layer, ms in client_stack(stub).items():
            print(f"| {layer} | {ms:.1f} |")
        measure(stub, "warm-up", FLAT_Q, runs[-1][2], None, 0.0, 0.0, inst)  # one-time client setup
        for label, question, config, plan in runs:
            r = measure(stub, label, question, config, plan, llm, search, inst)
            results.append(r)
            print_run(r)
            print(flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
