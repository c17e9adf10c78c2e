"""The compare command: one question flat and hierarchical with the same budget, or two finished runs."""

from __future__ import annotations

import argparse
import sys

from research_core.cli.errors import CliError
from research_core.cli.output import write_file
from research_core.configuration import RunConfig
from research_core.runs.runner import Runner

# The figures printed side by side, in this order.
FIELDS = (
    "mode",
    "status",
    "duration_s",
    "iterations",
    "llm_calls",
    "tokens",
    "cost_usd",
    "findings",
    "distinct_sources",
    "statements_supported",
    "citations_supported",
    "coverage_gaps",
)


def compare(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Compare two runs (--runs) or run QUESTION both ways; print the figures and the judge's picks."""
    from research_core.runs.compare import compare_modes, compare_runs

    if args.runs:
        comparison = compare_runs(runner, *args.runs)
    elif args.question and config is not None:
        comparison = compare_modes(runner, args.question, config, in_parallel=not args.sequential)
    else:
        raise CliError("give a QUESTION to run both modes, or --runs RUN_A RUN_B")
    if args.json:
        write_file(args.json, comparison.model_dump_json(indent=2), runner, "--json")
    a, b = comparison.runs
    print(f"{'':<20} {a.run_id:>28} {b.run_id:>28}")
    for f in FIELDS:
        print(f"{f:<20} {getattr(a, f)!s:>28} {getattr(b, f)!s:>28}")
    for criterion, winner in comparison.judgement.items():
        print(f"{criterion:<20} {winner}")
    for e in comparison.judge_errors:
        print(f"arbor: warning: the judge failed once: {e}", file=sys.stderr)
    return 0
