"""LLM calls and tokens per run, flat and hierarchical, on the five seed questions.

Each question runs twice with the configuration the CLI would pick for it (template detected
from the question, auto-approved), once with mode=flat and once with mode=hierarchical,
against the scripted stub (zero latency) and the fixture search corpus. Prompt tokens are the
stub's count of the real prompts (characters / 4); completion tokens are the scripted answers'
(findings of about 40 words, branch answers of about 180, reports of about 500). The dollar
figure prices those tokens at gpt-4o-mini rates.

Run: .venv/bin/python -m bench.calls_and_tokens
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.harness import SlowSearch, StubLLMProcess, machine, make_runner, realistic_script
from research_core.configuration import build_run_config

SEED_QUESTIONS = [
    "What is quantum computing?",
    "Compare React, Vue, and Angular for building web applications",
    "Explain the causes, effects, and solutions to climate change",
    "Three experts disagree on climate tipping points: Expert A cites 2030 deadline, Expert B cites 2050, "
    "Expert C says timelines are unknowable. Evaluate each position and explain which evidence is stronger and why.",
    "How does machine learning work, what are its applications in healthcare, and what are the ethical concerns?",
]

TASK_ORDER = [
    "classify",
    "decompose",
    "plan_queries",
    "extract_findings",
    "evaluate_depth",
    "revise_plan",
    "synthesize_branch",
    "verify_citations",
    "assess_coverage",
    "meta_synthesis",
]


def run_question(stub: StubLLMProcess, question: str, mode: str) -> dict:
    """One run of `question` in `mode`; its calls by task, tokens and cost."""
    with tempfile.TemporaryDirectory() as tmp:
        url = stub.use(realistic_script)
        runner = make_runner(Path(tmp) / "bench.db", url, [SlowSearch(0.0)])
        config = build_run_config(
            None, question, search_backends=["fixture"], auto_approve=True, mode=mode, read_pages=False
        )
        snap = runner.start(question, config)
        assert snap.status in ("completed", "completed_with_fallback"), (snap.status, snap.error)
        result = runner.result(snap.run_id)
    by_task = Counter(e.task for e in result.costs.entries)
    return {
        "question": question,
        "mode": mode,
        "template": config.template,
        "branches": len(result.sub_questions),
        "iterations": result.synthesis.total_iterations,
        "findings": result.synthesis.total_findings,
        "llm_calls": result.costs.llm_calls,
        "tokens_in": result.costs.tokens_in,
        "tokens_out": result.costs.tokens_out,
        "cost_usd": result.costs.total_usd,
        "by_task": dict(by_task),
    }


def main() -> None:
    """Run the ten runs and print the tables for bench/README.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"# calls_and_tokens  {time.strftime('%Y-%m-%d %H:%M')}  {machine()}\n")
    with StubLLMProcess() as stub:
        rows = [run_question(stub, q, mode) for q in SEED_QUESTIONS for mode in ("flat", "hierarchical")]
    print(
        "| # | question | mode | template | branches | iterations | findings | LLM calls | tokens in | tokens out "
        "| cost (gpt-4o-mini) |"
    )
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        n = SEED_QUESTIONS.index(r["question"]) + 1
        q = r["question"] if len(r["question"]) <= 48 else r["question"][:45] + "..."
        print(
            f"| {n} | {q} | {r['mode']} | {r['template']} | {r['branches']} | {r['iterations']} | {r['findings']} | "
            f"{r['llm_calls']} | {r['tokens_in']:,} | {r['tokens_out']:,} | ${r['cost_usd']:.4f} |"
        )
    print("\nCalls per task (flat / hierarchical, per question):\n")
    tasks = [t for t in TASK_ORDER if any(t in r["by_task"] for r in rows)]
    tasks += sorted({t for r in rows for t in r["by_task"]} - set(tasks))
    print("| # | " + " | ".join(tasks) + " |")
    print("|---:|" + "---:|" * len(tasks))
    for n in range(1, len(SEED_QUESTIONS) + 1):
        flat = next(r for r in rows if r["question"] == SEED_QUESTIONS[n - 1] and r["mode"] == "flat")
        hier = next(r for r in rows if r["question"] == SEED_QUESTIONS[n - 1] and r["mode"] == "hierarchical")
        cells = [f"{flat['by_task'].get(t, 0)} / {hier['by_task'].get(t, 0)}" for t in tasks]
        print(f"| {n} | " + " | ".join(cells) + " |")
    for mode in ("flat", "hierarchical"):
        sel = [r for r in rows if r["mode"] == mode]
        print(
            f"\nMean {mode}: {sum(r['llm_calls'] for r in sel) / len(sel):.1f} calls, "
            f"{sum(r['tokens_in'] + r['tokens_out'] for r in sel) / len(sel):,.0f} tokens, "
            f"${sum(r['cost_usd'] for r in sel) / len(sel):.4f} per run"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
