"""How a run that was started, resumed or re-run ended, on the terminal: its report, a gate or a failure."""

from __future__ import annotations

import sys
from pathlib import Path

from research_core.cli.errors import EXIT_FAILED
from research_core.cli.gates import print_gate
from research_core.cli.output import resume_command, write_file
from research_core.runs.rows import BranchRow
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot


def print_outcome(runner: Runner, snap: RunSnapshot, out: Path | None, json_out: Path | None) -> int:
    """Show how a drive of a run ended and return the exit code.

    A paused run prints its gate (0); a failed one its error and how to retry (1); a cancelled one
    says so (0); an unfinished one how to resume (1). A finished one writes its report to `out` and
    its result JSON to `json_out` if given, prints the report on stdout and the totals, hypotheses
    and warnings on stderr (0).
    """
    if snap.status in ("awaiting_review", "awaiting_step"):
        print_gate(runner, snap)
        return 0
    if snap.status == "failed":
        print(f"arbor: run {snap.run_id} failed: {snap.error}", file=sys.stderr)
        print(
            f"arbor: everything gathered so far is saved; retry with: {resume_command(runner, snap.run_id)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    if snap.status == "cancelled":
        print(f"Run {snap.run_id} was cancelled.")
        return 0
    result = runner.result(snap.run_id)
    if result is None:
        print(
            f"arbor: run {snap.run_id} is {snap.status}; resume it with: {resume_command(runner, snap.run_id)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    from research_core.output.export import export_result

    if out is not None:
        write_file(out, export_result(result, "md")[0], runner, "--out")
    if json_out is not None:
        write_file(json_out, export_result(result, "json")[0], runner, "--json")
    c = result.costs
    print(result.final_answer)
    print(
        f"\nRun {result.run_id}: {result.status}, {result.mode}, {result.synthesis.total_iterations} iterations, "
        f"{result.synthesis.total_findings} findings, {len(result.sources)} sources, {c.llm_calls} LLM calls, "
        f"{c.tokens_in + c.tokens_out} tokens, ${c.total_usd:.4f}, {result.duration_s:.0f}s",
        file=sys.stderr,
    )
    _print_hypotheses(result.sub_questions)
    for w in result.warnings:
        print(f"arbor: warning: {w}", file=sys.stderr)
    return 0


def _print_hypotheses(branches: list[BranchRow]) -> None:
    """One line per hypothesis of a hypothesis-mode run: its verdict, confidence and pivot."""
    tested = [b for b in branches if b.kind == "hypothesis"]
    if not tested:
        return
    print("Hypotheses:", file=sys.stderr)
    for b in tested:
        h = b.notes
        verdict = h.verdict or ("skipped" if b.status == "skipped" else "not judged")
        confidence = f" (confidence {h.confidence:g}/10)" if h.confidence is not None else ""
        print(f"  {b.id} {verdict}{confidence}: {b.question_text}", file=sys.stderr)
        if h.pivot:
            print(f"      pivot: {h.pivot}", file=sys.stderr)
