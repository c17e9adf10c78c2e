"""Wall time of a hierarchical run at parallel 1 versus 4/8, against the ideal schedule.

The call graph is fixed (see `harness.known_call_graph_config`): a supplied plan of N
top-level branches, each researched for exactly I iterations of plan_queries (LLM) ->
search -> extract_findings (LLM), then one synthesize_branch (LLM) per branch and one
meta_synthesis (LLM). No classify or decompose call happens (the plan is supplied).

Ideal = the longest chain of calls the schedule allows:
  parallel >= N:  I x (L + S + L) + L (branch synthesis) + L (meta-synthesis)
  parallel  < N:  max(that chain less the meta call, total work / parallel) + L
  parallel  = 1:  total work + L
with L the LLM latency and S the search latency. "% of ideal" is ideal / measured.

A last scenario draws every LLM latency from U(0.5, 1.5) x L and every search latency from
U(0.5, 1.5) x S (seeded). Its ideal is the slowest branch's own chain of measured calls plus
the meta call; its "round-barrier model" is what a scheduler that starts round k+1 only after
every step of round k ends must take: the sum over rounds of the slowest step of the round.

Run: .venv/bin/python -m bench.parallel_branches [--llm-latency 1.0] [--search-latency 0.5]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.harness import (
    Recorder,
    SlowSearch,
    StubLLMProcess,
    default_reply,
    fixed_plan,
    known_call_graph_config,
    machine,
    make_runner,
    realistic_script,
)
from research_core.schemas import Source

QUESTION = "Explain the causes, effects, and solutions to climate change"


def ideal_uniform(branches: int, iterations: int, parallel: int, llm: float, search: float) -> float:
    """The ideal wall time of the uniform scenario (see the module docstring)."""
    chain = iterations * (2 * llm + search) + llm
    work = branches * chain
    if parallel >= branches:
        return chain + llm
    return max(chain, work / parallel) + llm


class _Jitter:
    """Seeded latencies in U(0.5, 1.5) x mean, thread-safe."""

    def __init__(self, seed: int):
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def draw(self, mean: float) -> float:
        with self._lock:
            return mean * self._rng.uniform(0.5, 1.5)


class _JitterSearch(SlowSearch):
    """Search whose latency is drawn per call; intervals labelled with the branch number."""

    def __init__(self, mean: float, jitter: _Jitter, recorder: Recorder):
        super().__init__(mean, recorder)
        self.jitter = jitter

    def search(self, query: str, max_results: int) -> list[Source]:
        started = time.perf_counter()
        time.sleep(self.jitter.draw(self.latency_s))
        m = re.search(r"Aspect (\d+)", query)
        self.recorder.add(started, time.perf_counter(), f"sq_{int(m.group(1)):03d}" if m else "?")
        return super(SlowSearch, self).search(query, max_results)


def jitter_script(mean: float, seed: int) -> dict[str, Any]:
    """The realistic script, each answer after a latency drawn from U(0.5, 1.5) x mean (seeded)."""
    base = realistic_script()
    jitter = _Jitter(seed)

    def wrap(task: str):
        def reply(body: dict) -> str:
            time.sleep(jitter.draw(mean))
            fn = base.get(task)
            return fn(body) if fn else default_reply(task, body)

        return reply

    tasks = ["plan_queries", "extract_findings", "synthesize_branch", "meta_synthesis"]
    return {t: wrap(t) for t in tasks}


def run_once(
    stub: StubLLMProcess, branches: int, iterations: int, parallel: int, llm: float, search: float
) -> dict[str, Any]:
    """One run of the uniform scenario; returns its measured and ideal wall time."""
    with tempfile.TemporaryDirectory() as tmp:
        url = stub.use(realistic_script, latency_s=llm)
        runner = make_runner(Path(tmp) / "bench.db", url, [SlowSearch(search)])
        config = known_call_graph_config(parallel, iterations, branches)
        started = time.perf_counter()
        snap = runner.start(QUESTION, config, plan=fixed_plan(QUESTION, branches))
        wall = time.perf_counter() - started
        assert snap.status == "completed", (snap.status, snap.error)
        calls = len(stub.collect()[0])
    ideal = ideal_uniform(branches, iterations, parallel, llm, search)
    expected_calls = branches * (2 * iterations + 1) + 1
    return {
        "branches": branches,
        "iterations": iterations,
        "parallel": parallel,
        "wall_s": wall,
        "ideal_s": ideal,
        "llm_calls": calls,
        "expected_calls": expected_calls,
    }


def run_jitter(
    stub: StubLLMProcess, branches: int, iterations: int, parallel: int, llm: float, search: float, seed: int
) -> dict[str, Any]:
    """The jittered scenario: measured time, the branch-chain ideal and the round-barrier model."""
    search_rec = Recorder()
    with tempfile.TemporaryDirectory() as tmp:
        url = stub.use(jitter_script, llm, seed)
        runner = make_runner(Path(tmp) / "bench.db", url, [_JitterSearch(search, _Jitter(seed + 1), search_rec)])
        config = known_call_graph_config(parallel, iterations, branches)
        started = time.perf_counter()
        snap = runner.start(QUESTION, config, plan=fixed_plan(QUESTION, branches))
        wall = time.perf_counter() - started
        assert snap.status == "completed", (snap.status, snap.error)
        entries = snap.costs.entries
    # per branch, per iteration: plan_queries + search + extract_findings, as measured
    steps: dict[str, list[float]] = {}
    for task in ("plan_queries", "extract_findings"):
        for bid in {e.branch for e in entries if e.task == task}:
            lat = [e.latency_s for e in entries if e.task == task and e.branch == bid]
            row = steps.setdefault(bid, [0.0] * len(lat))
            for k, v in enumerate(lat):
                row[k] += v
    for bid, row in steps.items():
        lat = [b - a for a, b, label in sorted(search_rec.items) if label == bid]
        for k, v in enumerate(lat[: len(row)]):
            row[k] += v
    synth = {e.branch: e.latency_s for e in entries if e.task == "synthesize_branch"}
    meta = sum(e.latency_s for e in entries if e.task == "meta_synthesis")
    ideal = max(sum(row) + synth.get(bid, 0.0) for bid, row in steps.items()) + meta
    barrier = None
    if parallel >= branches:
        rounds = max(len(r) for r in steps.values())
        barrier = sum(max(r[k] for r in steps.values() if k < len(r)) for k in range(rounds))
        barrier += max(synth.values()) + meta
    return {
        "branches": branches,
        "iterations": iterations,
        "parallel": parallel,
        "wall_s": wall,
        "ideal_s": ideal,
        "barrier_model_s": barrier,
        "llm_calls": len(entries),
    }


STAGGERED_PRIORITIES = [1.0, 0.7, 0.4, 0.2]  # with max_iterations=18: 5, 4, 2 and 1 iterations


def run_staggered(stub: StubLLMProcess, adaptive: bool, llm: float, search: float) -> dict[str, Any]:
    """4 branches of 5, 4, 2 and 1 iterations at parallel 4, with the adaptive plan off or on.

    Ideal either way: the longest branch, 5 x (L + S + L) + L, plus the meta call; the plan
    revisions (one LLM call after each of the first three completed branches) could run beside
    the research of the branches already under way.
    """
    with tempfile.TemporaryDirectory() as tmp:
        url = stub.use(realistic_script, latency_s=llm)
        runner = make_runner(Path(tmp) / "bench.db", url, [SlowSearch(search)])
        config = known_call_graph_config(
            4, 1, 4, sub_question_max_iterations=6, max_iterations=18, adaptive_plan=adaptive
        )
        plan = fixed_plan(QUESTION, 4, STAGGERED_PRIORITIES)
        started = time.perf_counter()
        snap = runner.start(QUESTION, config, plan=plan)
        wall = time.perf_counter() - started
        assert snap.status == "completed", (snap.status, snap.error)
    iterations = [b.iteration_count for b in snap.branches]
    revisions = sum(1 for e in snap.costs.entries if e.task == "revise_plan")
    ideal = max(iterations) * (2 * llm + search) + llm + llm
    return {
        "adaptive_plan": adaptive,
        "iterations": iterations,
        "revisions": revisions,
        "wall_s": wall,
        "ideal_s": ideal,
        "llm_calls": len(snap.costs.entries),
    }


def main() -> None:
    """Run every scenario and print the table for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-latency", type=float, default=1.0)
    parser.add_argument("--search-latency", type=float, default=0.5)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="only 4 branches at parallel 1 and 4")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    args = parser.parse_args()
    llm, search, it = args.llm_latency, args.search_latency, args.iterations
    print(f"# parallel_branches  {time.strftime('%Y-%m-%d %H:%M')}  {machine()}")
    print(f"# LLM {llm}s per call, search {search}s per call, {it} iterations per branch")
    with StubLLMProcess() as stub:
        first = run_once(stub, 1, 1, 1, 0.0, 0.0)["wall_s"]
        second = run_once(stub, 1, 1, 1, 0.0, 0.0)["wall_s"]
        print(
            f"# one-time setup of this process, paid by its first run (zero-latency 1-branch run, first minus "
            f"second): {1000 * (first - second):.0f} ms; the runs below are warm\n"
        )
        rows = measure_all(stub, args, llm, search, it)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


def measure_all(stub: StubLLMProcess, args: argparse.Namespace, llm: float, search: float, it: int) -> list[dict]:
    """Every scenario, printed as Markdown tables; returns the rows."""
    scenarios = [(4, 1), (4, 4)] if args.quick else [(4, 1), (4, 4), (8, 1), (8, 4), (8, 8)]
    rows = []
    serial: dict[int, float] = {}
    print("| branches | parallel | LLM calls | wall s | ideal s | % of ideal | speedup vs parallel 1 |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, p in scenarios:
        r = run_once(stub, n, it, p, llm, search)
        if p == 1:
            serial[n] = r["wall_s"]
        r["speedup"] = serial[n] / r["wall_s"] if n in serial else None
        rows.append(r)
        speed = f"{r['speedup']:.2f}x" if r["speedup"] else "-"
        print(
            f"| {n} | {p} | {r['llm_calls']} (expected {r['expected_calls']}) | {r['wall_s']:.2f} | "
            f"{r['ideal_s']:.2f} | {100 * r['ideal_s'] / r['wall_s']:.1f}% | {speed} |",
            flush=True,
        )
    if not args.quick:
        print("\nJittered latencies (U(0.5, 1.5) x mean, seed 7):\n")
        print("| branches | parallel | wall s | ideal s (slowest branch chain) | round-barrier model s | % of ideal |")
        print("|---:|---:|---:|---:|---:|---:|")
        for n, p in [(4, 4), (8, 8)]:
            r = run_jitter(stub, n, it, p, llm, search, seed=7)
            rows.append({"jitter": True, **r})
            model = f"{r['barrier_model_s']:.2f}" if r["barrier_model_s"] is not None else "-"
            print(
                f"| {n} | {p} | {r['wall_s']:.2f} | {r['ideal_s']:.2f} | {model} | "
                f"{100 * r['ideal_s'] / r['wall_s']:.1f}% |",
                flush=True,
            )
    if not args.quick:
        print("\nStaggered branches (5, 4, 2, 1 iterations) at parallel 4, adaptive plan off and on:\n")
        print("| adaptive_plan | iterations | plan revisions | LLM calls | wall s | ideal s | % of ideal |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for adaptive in (False, True):
            r = run_staggered(stub, adaptive, llm, search)
            rows.append({"staggered": True, **r})
            print(
                f"| {adaptive} | {r['iterations']} | {r['revisions']} | {r['llm_calls']} | {r['wall_s']:.2f} | "
                f"{r['ideal_s']:.2f} | {100 * r['ideal_s'] / r['wall_s']:.1f}% |",
                flush=True,
            )
    return rows


if __name__ == "__main__":
    main()
