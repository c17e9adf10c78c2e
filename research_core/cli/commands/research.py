"""The commands that research: decompose a question, run it, resume a run, re-run one branch.

On a PostgreSQL store `run`, `resume` and `rerun` queue the run for a `worker` and wait for it
(`cli.follow`), unless `--here` asks to research in this process; on SQLite they research here.
"""

from __future__ import annotations

import argparse
import json
import sys

from research_core.cli.config import read_json, use_run_llm, warn_ignored_on_resume
from research_core.cli.follow import follow
from research_core.cli.gates import read_answer
from research_core.cli.output import report_progress, resume_command, show_command, write_file
from research_core.cli.preflight import check_plan
from research_core.cli.results import print_outcome
from research_core.configuration import RunConfig
from research_core.runs.runner import FINISHED, Runner


def _announce(args: argparse.Namespace, runner: Runner, run_id: str, note: str = "") -> None:
    """Say that a run started and how to resume it; remember the hint for the message after Ctrl-C."""
    args.resume_hint = resume_command(runner, run_id)
    report_progress(f"run id {run_id}{note} started; resume with: {args.resume_hint}")


def queued(args: argparse.Namespace, runner: Runner) -> bool:
    """Whether this command's run goes to a worker: on PostgreSQL, unless --here."""
    return runner.location.is_postgres and not getattr(args, "here", False)


def decompose(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Print (and with --json write) the plan proposed for a question, editable for `run --plan`."""
    proposed, warnings = runner.propose_plan(args.question, config)
    data = proposed.model_dump(
        include={
            "question": True,
            "strategy": True,
            "sub_questions": {"__all__": {"id", "question_text", "priority", "rationale", "parent_id"}},
        }
    )
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if args.json:
        write_file(args.json, text + "\n", runner, "--json")
    print(text)
    for w in warnings:
        print(f"arbor: warning: {w}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Research a question (with a supplied --plan, checked before the run starts) until it ends or pauses.

    With --detach (PostgreSQL only: refused by `check_files` on SQLite) the run is queued for a
    `worker`, and its id printed on stdout at once; without it, on PostgreSQL, queued and followed.
    """
    plan = read_json(args.plan) if args.plan else None
    if plan is not None and config is not None:
        check_plan(plan, args.question, config)  # refused, or its budget said, before the run starts
    if args.detach:
        run_id = runner.enqueue(args.question, config, plan=plan)
        report_progress(f"run id {run_id} queued for a worker; follow it with: {show_command(runner, run_id)}")
        print(run_id)
        return 0
    if queued(args, runner):
        run_id = runner.enqueue(args.question, config, plan=plan)
        snap = follow(args, runner, run_id, on_start=lambda: _announce(args, runner, run_id))
    else:
        snap = runner.start(args.question, config, plan=plan, on_created=lambda run_id: _announce(args, runner, run_id))
    return print_outcome(runner, snap, args.out, args.json)


def resume(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Continue a run with the LLM it started with: answer its open gate, or pick up after a stop.

    The answer is read and checked by the gate's own parser before the run moves: a refused one is
    one line and exit code 2, with the gate still open.
    """
    snap = runner.snapshot(args.run_id)
    answer = read_answer(args.answer, snap) if args.answer is not None else None
    use_run_llm(runner, args, args.run_id)
    warn_ignored_on_resume(args)
    args.resume_hint = resume_command(runner, args.run_id)
    if not queued(args, runner):
        snap = runner.resume(args.run_id, answer)
    elif answer is not None or (snap.pending is None and snap.status not in (*FINISHED, "cancelled")):
        # (otherwise nothing moves: the open gate or the outcome is shown again, as a resume here shows it)
        runner.enqueue_resume(args.run_id, answer)
        snap = follow(args, runner, args.run_id)
    return print_outcome(runner, snap, args.out, args.json)


def rerun(args: argparse.Namespace, runner: Runner, config: RunConfig | None) -> int:
    """Re-research one branch of a finished run (text or priority edited) as a new, linked run."""
    use_run_llm(runner, args, args.run_id)
    warn_ignored_on_resume(args)
    note = f" (re-run of {args.branch_id} from {args.run_id})"
    if queued(args, runner):
        new_id = runner.prepare_rerun(args.run_id, args.branch_id, question_text=args.question, priority=args.priority)
        runner.enqueue_resume(new_id)
        snap = follow(args, runner, new_id, on_start=lambda: _announce(args, runner, new_id, note))
        return print_outcome(runner, snap, args.out, args.json)
    snap = runner.rerun_branch(
        args.run_id,
        args.branch_id,
        question_text=args.question,
        priority=args.priority,
        on_created=lambda run_id: _announce(args, runner, run_id, note),
    )
    return print_outcome(runner, snap, args.out, args.json)
