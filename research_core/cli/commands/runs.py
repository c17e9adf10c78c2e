"""The commands over recorded runs: list them, show one, export a finished one, delete one."""

from __future__ import annotations

import argparse
import sys

from research_core.accounts.access import UserRuns
from research_core.accounts.permissions import visibility_of
from research_core.accounts.records import LOCAL_NAME
from research_core.cli.errors import CliError
from research_core.cli.gates import print_gate
from research_core.cli.output import write_file
from research_core.configuration import RunConfig
from research_core.runs.runner import Runner


def list_runs(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """One line per run, newest first: id, status, mode, creation time, cost so far and the question."""
    rows = runner.runs()
    if not rows:
        print('No runs yet. Start one with: python -m research_core run "your question"')
    for r in rows:
        cost = f"${r.totals.cost_usd:.4f}" if r.totals is not None else "-"
        mode = r.mode or "-"
        whose = f"{r.owner or LOCAL_NAME:<16} {visibility_of(r):<8}" if isinstance(runner, UserRuns) else ""
        print(f"{r.id}  {r.status:<24} {mode:<12} {whose}{r.created_at}  {cost:>9}  {r.question[:60]}")
    return 0


def show(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """A run's status, its branches with their iterations, its error and its open gate."""
    snap = runner.snapshot(args.run_id)
    print(f"{snap.run_id}: {snap.status} ({snap.mode}) — {snap.question}")
    if isinstance(runner, UserRuns):
        rights = runner.rights(args.run_id)
        print(f"owner: {rights.owner} ({'shared with the team' if rights.visibility == 'team' else 'private'})")
    for b in snap.branches:
        print(f"  {b.id} {b.status:<12} {b.iteration_count}/{b.allocated_iterations} it.  {b.question_text}")
    if snap.error:
        print(f"error: {snap.error}")
    if snap.pending:
        print_gate(runner, snap)
    return 0


def export(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Write a finished run as Markdown, HTML, JSON, its execution log (jsonl), PDF or Word (docx).

    With --output the export goes to that file, else to standard output; a binary format (pdf,
    docx) is refused, in one line, when standard output is a terminal. Refused until the run finishes.
    """
    from research_core.output.export import BINARY_FORMATS, export_result

    binary = args.format in BINARY_FORMATS
    if binary and args.out is None and sys.stdout.isatty():
        raise CliError(f"{args.format} is a binary format; write it to a file with --output FILE (or pipe it)")
    result = runner.result(args.run_id)
    if result is None:
        raise CliError(f"run {args.run_id} has not finished; nothing to export yet")
    content, _name, _mime = export_result(result, args.format)
    if args.out is None:
        write_stdout(content)
        return 0
    write_file(args.out, content, runner, "--output")
    print(f"wrote {args.out}")
    return 0


def write_stdout(content: str | bytes) -> None:
    """Text through the (cleaning) standard output; bytes to its binary buffer, as they are."""
    if isinstance(content, str):
        sys.stdout.write(content)
        return
    sys.stdout.flush()
    sys.stdout.buffer.write(content)
    sys.stdout.buffer.flush()


def delete(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Delete a run with its checkpoints; an unknown id is a CliError."""
    if not runner.delete(args.run_id):
        raise CliError(f"no run with id {args.run_id!r}")
    print(f"deleted {args.run_id}")
    return 0
