"""Arbor's command line: decompose, run, resume, list and export research runs; manage the library.

Errors print one line to stderr and exit non-zero; a user mistake never prints a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import logging
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from research_core.cli.files import (
    MissingDatabaseError,
    OutputPathError,
    check_output_path,
    require_database,
    write_output,
)
from research_core.cli.options import NumberOption, OneLineParser, check_numbers, field_error, field_option
from research_core.cli.signals import Stopped, exit_code, stop_signals_interrupt
from research_core.cli.terminal import clean_output_streams
from research_core.configuration import (
    TEMPLATES,
    LLMSettings,
    RunConfig,
    build_run_config,
    resolve_llm_settings,
)
from research_core.heap import freeze_startup_heap
from research_core.llm.client import allow_new_calls, stop_new_calls
from research_core.output.sanitize import strip_url_secrets, strip_url_secrets_in_text
from research_core.runner import RunError, Runner, RunSnapshot
from research_core.search.registry import known_backends, parse_backend_names, searxng_url_from
from research_core.store import default_db_path

EXIT_USAGE = 2
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130

ANSWER_HELP = (
    "the answer to the run's open gate. Plan review: approve | cancel | PLAN.json (an edited plan from "
    "decompose or the gate). Step gate: continue | stop | EDITS.json (a list of {id, question_text?, priority?, "
    "skip?}). Drill-down: approve | reject | CHILDREN.json (a list of {question_text, priority}). Plan "
    "revision: accept | reject | CHANGES.json (the part of {add, drop, reprioritize} to keep). Any FILE.json "
    'may also hold the full answer object, e.g. {"action": "approve", ...}'
)


# Numeric options, with the ranges of the settings they set; checked in `run_command`.
LLM_TIMEOUT = field_option("--llm-timeout", LLMSettings, "timeout_s")
MAX_COST = NumberOption("--max-cost", "max_cost", float, {"ge": 0.0}, "max_total_cost_usd")
MAX_ITERATIONS = field_option("--max-iterations", RunConfig, "max_iterations")
PARALLEL = field_option("--parallel", RunConfig, "parallel")
PRIORITY = NumberOption("--priority", "priority", float, {"ge": 0.0, "le": 1.0}, "priority")
LIMIT = NumberOption("--limit", "limit", int, {"ge": 1})
NUMBER_OPTIONS = (LLM_TIMEOUT, MAX_COST, MAX_ITERATIONS, PARALLEL, PRIORITY, LIMIT)


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def _progress(message: str) -> None:
    print(f"arbor: {message}", file=sys.stderr, flush=True)


def _common(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("common options")
    g.add_argument("--db", type=Path, default=None, help="SQLite database (default: ./data/arbor.db or $ARBOR_DB)")
    g.add_argument("--llm", choices=["local", "openai"], default=None, help="embedded local model or OpenAI-compatible")
    g.add_argument("--llm-base-url", default=None, help="OpenAI-compatible base URL, e.g. http://localhost:11434/v1")
    g.add_argument("--llm-model", default=None, help="working model (plan, extract, branch synthesis)")
    g.add_argument("--synthesis-model", default=None, help="model for the final synthesis")
    g.add_argument("--llm-timeout", type=LLM_TIMEOUT.parse, default=None, help="seconds before one LLM call times out")
    g.add_argument("--search", default=None, help=f"comma list of search backends ({', '.join(known_backends())})")
    g.add_argument(
        "--searxng-url", default=None, help="SearXNG instance for --search searxng (default: $ARBOR_SEARXNG_URL)"
    )
    g.add_argument("--max-cost", type=MAX_COST.parse, default=None, help="cost cap in USD")
    g.add_argument("--max-iterations", type=MAX_ITERATIONS.parse, default=None, help="total iteration budget")
    g.add_argument("--parallel", type=PARALLEL.parse, default=None, help="branches researched at once (1-16)")
    g.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")


def _limits(parser: argparse.ArgumentParser) -> None:
    fields = ", ".join(sorted(RunConfig.model_fields))
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help=f"set any run limit, e.g. --set max_depth=3 --set drill_down_on=adequate (fields: {fields})",
    )


def _set_values(pairs: list[str]) -> dict[str, Any]:
    """`--set FIELD=VALUE` pairs as config overrides; VALUE is read as JSON when it parses, else as text."""
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise CliError(f"--set {pair!r}: write FIELD=VALUE, e.g. --set max_depth=3")
        if name not in RunConfig.model_fields:
            close = difflib.get_close_matches(name, RunConfig.model_fields, n=1)
            hint = f" (did you mean {close[0]}?)" if close else f"; fields: {', '.join(sorted(RunConfig.model_fields))}"
            raise CliError(f"--set: unknown field {name!r}{hint}")
        try:
            out[name] = json.loads(raw)
        except json.JSONDecodeError:
            out[name] = raw.strip()
    return out


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m research_core`."""
    parser = OneLineParser(prog="python -m research_core", description="Arbor hierarchical research")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("decompose", help="propose a plan of sub-questions for a question")
    p.add_argument("question")
    p.add_argument("--template", default="auto", choices=["auto", *TEMPLATES])
    p.add_argument("--json", type=Path, default=None, help="write the plan as JSON (editable, for run --plan)")
    _limits(p)
    _common(p)

    p = sub.add_parser("run", help="research a question")
    p.add_argument("question")
    p.add_argument(
        "--mode",
        choices=["auto", "flat", "hierarchical", "hypothesis"],
        default=None,
        help="auto: classify the question; hypothesis: propose, test and judge hypotheses",
    )
    p.add_argument("--template", default="auto", choices=["auto", *TEMPLATES])
    p.add_argument("--plan", type=Path, default=None, help="plan JSON (from decompose, possibly edited)")
    p.add_argument("--auto", action="store_true", help="approve the plan and run to the end without pausing")
    p.add_argument("--step", action="store_true", help="pause after each branch")
    p.add_argument("--language", default=None, help="language of the report (default: the question's)")
    p.add_argument("--out", type=Path, default=None, help="write the Markdown report here")
    p.add_argument("--json", type=Path, default=None, help="write the result JSON here")
    _limits(p)
    _common(p)

    p = sub.add_parser(
        "resume",
        help="answer a run's gate, or continue a run after a crash or failure",
        description="Continue a run with its own LLM settings (from when it started) unless --llm* flags are "
        "given; its limits and search backends stay those it started with.",
    )
    p.add_argument("run_id")
    p.add_argument("--answer", default=None, help=ANSWER_HELP)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    _common(p)

    p = sub.add_parser("compare", help="run a question flat and hierarchical with the same budget, or compare 2 runs")
    p.add_argument("question", nargs="?", default=None)
    p.add_argument("--runs", nargs=2, metavar="RUN_ID", default=None, help="compare two finished runs instead")
    p.add_argument("--template", default="auto", choices=["auto", *TEMPLATES])
    p.add_argument("--sequential", action="store_true", help="run the two modes one after the other")
    p.add_argument("--json", type=Path, default=None, help="write the comparison as JSON")
    _limits(p)
    _common(p)

    p = sub.add_parser("rerun", help="re-research one branch of a finished run (a new, linked run)")
    p.add_argument("run_id")
    p.add_argument("branch_id")
    p.add_argument("--question", default=None, help="new text for the branch")
    p.add_argument("--priority", type=PRIORITY.parse, default=None, help="0 to 1")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    _common(p)

    p = sub.add_parser("runs", help="list runs")
    _common(p)

    p = sub.add_parser("show", help="show a run's status and open gate")
    p.add_argument("run_id")
    _common(p)

    p = sub.add_parser("export", help="export a finished run")
    p.add_argument("run_id")
    p.add_argument("--format", choices=["md", "html", "json", "jsonl"], default="md", help="jsonl: the execution log")
    p.add_argument("--out", type=Path, required=True)
    _common(p)

    p = sub.add_parser("delete", help="delete a run and its checkpoints")
    p.add_argument("run_id")
    _common(p)

    lib = sub.add_parser("library", help="the local document library")
    lib_sub = lib.add_subparsers(dest="library_command", required=True)
    p = lib_sub.add_parser("add", help="index documents (.txt .md .html .pdf)")
    p.add_argument("paths", nargs="+", type=Path)
    _common(p)
    p = lib_sub.add_parser("search", help="search the library")
    p.add_argument("terms")
    p.add_argument("--limit", type=LIMIT.parse, default=5)
    _common(p)
    p = lib_sub.add_parser("list", help="list indexed documents")
    _common(p)
    p = lib_sub.add_parser("remove", help="remove a document by id")
    p.add_argument("doc_id")
    _common(p)
    return parser


def _llm_flags(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "provider": args.llm,
        "base_url": args.llm_base_url,
        "model": args.llm_model,
        "synthesis_model": args.synthesis_model,
        "timeout_s": args.llm_timeout,
    }


def _llm_settings(args: argparse.Namespace) -> LLMSettings:
    return LLMSettings.from_env(**_llm_flags(args))


def _runner(args: argparse.Namespace) -> Runner:
    freeze_startup_heap()
    return Runner(args.db, llm_settings=_llm_settings(args), progress=_progress)


def _use_run_llm(runner: Runner, args: argparse.Namespace, run_id: str) -> None:
    """Continue `run_id` with the LLM it started with; explicit --llm* flags override it."""
    stored = runner.llm_record(run_id)
    if stored is None:
        return
    settings = resolve_llm_settings(stored, **_llm_flags(args))
    runner.use_llm_settings(settings)
    default = "the embedded model" if settings.provider == "local" else "api.openai.com"
    where = strip_url_secrets(settings.base_url) if settings.base_url else default
    _progress(f"LLM: {settings.provider}, {settings.model} at {where}")


def _db_flag(runner: Runner) -> str:
    """` --db PATH` when the runner's database is not the one a bare command would use."""
    try:
        same = runner.db_path.resolve() == default_db_path().resolve()
    except OSError:
        same = False
    return "" if same else f" --db {shlex.quote(str(runner.db_path))}"


def _resume_command(runner: Runner, run_id: str, answer: str | None = None) -> str:
    tail = f" --answer {answer}" if answer else ""
    return f"python -m research_core resume {run_id}{_db_flag(runner)}{tail}"


def _ignored_on_resume(args: argparse.Namespace) -> None:
    given = [
        flag
        for flag, value in (
            ("--search", args.search),
            ("--searxng-url", args.searxng_url),
            ("--max-cost", args.max_cost),
            ("--max-iterations", args.max_iterations),
            ("--parallel", args.parallel),
        )
        if value is not None
    ]
    if given:
        verb = "apply" if len(given) > 1 else "applies"
        _progress(
            f"warning: {', '.join(given)} {verb} only when a run starts; this run keeps the limits it started with"
        )


def _backends(args: argparse.Namespace) -> list[str] | None:
    if args.search is None:
        return None
    try:
        return parse_backend_names(args.search)
    except ValueError as exc:
        raise CliError(f"--search: {exc}") from None


def _config(args: argparse.Namespace, question: str, **extra: Any):
    backends = _backends(args)
    try:
        # --set first, then the named flags, then what the command itself decides
        overrides = _set_values(getattr(args, "set", None) or [])
        named = {
            "search_backends": backends,
            "max_total_cost_usd": args.max_cost,
            "max_iterations": args.max_iterations,
            "parallel": args.parallel,
            "searxng_url": args.searxng_url,
        }
        overrides.update({k: v for k, v in named.items() if v is not None})
        overrides.update(extra)
        overrides["searxng_url"] = searxng_url_from(overrides.get("searxng_url"))
        config = build_run_config(getattr(args, "template", None), question, **overrides)
    except ValidationError as exc:
        raise CliError(_validation_line(exc, RunConfig)) from None
    except ValueError as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    if "searxng" in config.search_backends and config.searxng_url is None:
        raise CliError("--search searxng needs the instance's URL: --searxng-url URL, or set ARBOR_SEARXNG_URL")
    return config


def _validation_line(exc: ValidationError, model: type[RunConfig] | type[LLMSettings]) -> str:
    """The first error of a validation as one line: the field, its allowed range and the value given."""
    first = exc.errors()[0]
    field = ".".join(str(x) for x in first["loc"]) or "configuration"
    reason = field_error(model, field, first.get("input")) if first["loc"] else None
    where = f"--set {field}" if model is RunConfig else field
    if reason:
        return f"{where}: {reason}"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if first["loc"] else message


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def _print_gate(runner: Runner, snap: RunSnapshot) -> None:
    pending = snap.pending or {}
    kind = pending.get("kind")
    if kind == "review":
        print(f"Plan for: {pending['question']}  (strategy: {pending['strategy']})")
        est = pending.get("estimated_iterations", {})
        unfunded = set(pending.get("unfunded") or [])
        for sq in pending["sub_questions"]:
            indent = "  " * (sq.get("depth") or 0)
            budget = "unfunded" if sq["id"] in unfunded else f"{est.get(sq['id'], '?')} it."
            print(f"  {indent}{sq['id']}  [{sq['priority']:.2f}]  {sq['question_text']}  ({budget})")
        low, high = pending.get("estimated_cost_usd", [0, 0])
        print(f"Estimated cost: ${low:.4f} - ${high:.4f}")
        if pending.get("budget_note"):
            print(f"Budget: {pending['budget_note']}")
        _print_refusal(pending)
        print(f"\nRun {snap.run_id} is waiting for review. Continue with:")
        print(f"  {_resume_command(runner, snap.run_id, 'approve')}")
        print(f"  {_resume_command(runner, snap.run_id, 'edited_plan.json')}")
        print(f"  {_resume_command(runner, snap.run_id, 'cancel')}")
    elif kind == "step":
        for c in pending.get("completed", []):
            print(f"Completed {c['id']}: {c['question_text']}  (confidence {c.get('confidence')})")
        for p in pending.get("pending", []):
            print(f"  pending {p['id']} [{p['priority']:.2f}] {p['question_text']}")
        _print_refusal(pending)
        print(f"\nRun {snap.run_id} paused after a branch. Continue with:")
        print(f"  {_resume_command(runner, snap.run_id, 'continue|stop|edits.json')}")
    elif kind == "drill_down":
        _print_drill_gate(runner, snap, pending)
    elif kind == "revision":
        _print_revision_gate(runner, snap, pending)


def _print_refusal(pending: dict[str, Any]) -> None:
    if pending.get("error"):
        print(f"Refused: {pending['error']}", file=sys.stderr)


def _print_drill_gate(runner: Runner, snap: RunSnapshot, pending: dict[str, Any]) -> None:
    branch = pending.get("branch") or {}
    print(f"Go deeper into {branch.get('id')}: {branch.get('question_text')}  [{_priority(branch.get('priority'))}]")
    print(f"  Depth of its findings: {branch.get('depth_assessment') or 'not assessed'}")
    if pending.get("reasoning"):
        print(f"  Why: {pending['reasoning']}")
    print("  Proposed sub-questions:")
    for n, child in enumerate(pending.get("proposals") or [], start=1):
        print(f"    {n}. [{_priority(child.get('priority'))}] {child.get('question_text')}")
        if child.get("rationale"):
            print(f"       {child['rationale']}")
    children = [
        {"question_text": c.get("question_text"), "priority": c.get("priority")} for c in pending.get("proposals") or []
    ]
    print(f"As JSON, to edit for --answer FILE.json: {json.dumps(children, ensure_ascii=False)}")
    _print_refusal(pending)
    print(f"\nRun {snap.run_id} is waiting for a drill-down decision. Continue with:")
    print(f"  {_resume_command(runner, snap.run_id, 'approve')}")
    print(f"  {_resume_command(runner, snap.run_id, 'reject')}")
    print(f"  {_resume_command(runner, snap.run_id, 'children.json')}   (a JSON list of {{question_text, priority}})")


def _print_revision_gate(runner: Runner, snap: RunSnapshot, pending: dict[str, Any]) -> None:
    changes = pending.get("changes") or {}
    texts = {b["id"]: b.get("question_text", "") for b in snap.branches}
    print("Proposed change to the pending part of the plan:")
    for item in changes.get("add", []):
        print(f"  add   [{_priority(item.get('priority'))}] {item.get('question_text')}")
        if item.get("rationale"):
            print(f"        {item['rationale']}")
    for bid in changes.get("drop", []):
        print(f"  drop  {bid}: {texts.get(bid, '')}")
    for bid, priority in (changes.get("reprioritize") or {}).items():
        print(f"  priority {bid} -> {_priority(priority)}: {texts.get(bid, '')}")
    if changes.get("reasoning"):
        print(f"Reason: {changes['reasoning']}")
    print(f"As JSON, to edit for --answer FILE.json: {_revision_as_json(changes)}")
    _print_refusal(pending)
    print(f"\nRun {snap.run_id} is waiting for a decision on the plan revision. Continue with:")
    print(f"  {_resume_command(runner, snap.run_id, 'accept')}")
    print(f"  {_resume_command(runner, snap.run_id, 'reject')}")
    print(
        f"  {_resume_command(runner, snap.run_id, 'changes.json')}   (the part of {{add, drop, reprioritize}} to keep)"
    )


def _revision_changes(changes: dict[str, Any], pending: dict[str, Any]) -> dict[str, Any]:
    """Match the questions to add (text or object) to the proposed ones, which the engine compares exactly."""
    proposed = (pending.get("changes") or {}).get("add", [])
    by_text = {" ".join(str(a.get("question_text", "")).split()).lower(): a for a in proposed if isinstance(a, dict)}
    add = []
    for item in changes.get("add", []) or []:
        text = item.get("question_text") if isinstance(item, dict) else item
        add.append(by_text.get(" ".join(str(text).split()).lower(), item))
    return {**changes, "add": add}


def _revision_as_json(changes: dict[str, Any]) -> str:
    return json.dumps(
        {
            "add": [a.get("question_text") for a in changes.get("add", [])],
            "drop": list(changes.get("drop", [])),
            "reprioritize": dict(changes.get("reprioritize") or {}),
        },
        ensure_ascii=False,
    )


def _priority(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return "?"


def _answer_from_file(data: Any, pending: dict[str, Any]) -> Any:
    """Turn the content of an --answer FILE.json into the answer object of the open gate.

    A file holding a full answer (with "action") is passed as is; otherwise the shape of the
    content and the open gate decide: an edited plan approves the plan, a list of edits
    continues a step gate, a list of children approves a drill-down, changes accept a revision
    (questions to add may be given by their text alone).
    """
    kind = pending.get("kind")
    if isinstance(data, dict) and "action" in data:
        if kind == "revision" and isinstance(data.get("changes"), dict):
            return {**data, "changes": _revision_changes(data["changes"], pending)}
        return data
    if kind == "drill_down" or (kind is None and isinstance(data, dict) and "children" in data):
        children = data.get("children") if isinstance(data, dict) else data
        return {"action": "approve", "children": children}
    if kind == "revision" or (kind is None and isinstance(data, dict) and {"add", "drop", "reprioritize"} & set(data)):
        return {"action": "accept", "changes": _revision_changes(data, pending) if isinstance(data, dict) else data}
    if kind == "step" or (kind is None and isinstance(data, dict) and "edits" in data):
        edits = data.get("edits") if isinstance(data, dict) else data
        return {"action": "continue", "edits": edits}
    if isinstance(data, dict) and "sub_questions" in data:
        return {"action": "approve", **data}
    return data


def _write(path: Path, text: str, runner: Runner, option: str) -> None:
    """Write one output file atomically, never over the database; a problem is one CliError line."""
    try:
        write_output(path, text, runner.db_path, option)
    except OutputPathError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None


# The output options of each command, checked before the command does any work.
OUTPUT_OPTIONS = {
    "decompose": ("json",),
    "run": ("out", "json"),
    "resume": ("out", "json"),
    "rerun": ("out", "json"),
    "compare": ("json",),
    "export": ("out",),
}
# Commands that only make sense on an existing database: refused, with nothing created, without one.
NEEDS_DATABASE = {"runs", "show", "export", "resume", "rerun", "delete"}
LIBRARY_NEEDS_DATABASE = {"search", "list", "remove"}


def _db_path(args: argparse.Namespace) -> Path:
    return args.db if args.db is not None else default_db_path()


def _check_files(args: argparse.Namespace) -> None:
    """Before any work: the database a reading command needs exists; no output path is the database."""
    db = _db_path(args)
    reading = args.command in NEEDS_DATABASE or (args.command == "compare" and args.runs)
    if args.command == "library":
        reading = args.library_command in LIBRARY_NEEDS_DATABASE
    if reading:
        try:
            require_database(db, default=args.db is None and "ARBOR_DB" not in os.environ)
        except MissingDatabaseError as exc:
            raise CliError(str(exc)) from None
    for name in OUTPUT_OPTIONS.get(args.command, ()):
        path = getattr(args, name, None)
        if path is not None:
            try:
                check_output_path(path, db, f"--{name}")
            except OutputPathError as exc:
                raise CliError(str(exc)) from None


def _command_config(args: argparse.Namespace) -> RunConfig | None:
    """The run configuration of a command that starts research (decompose, run, compare QUESTION)."""
    if args.command == "decompose" or (args.command == "compare" and args.question and not args.runs):
        return _config(args, args.question)
    if args.command == "run":
        return _config(
            args,
            args.question,
            mode=args.mode,
            auto_approve=True if args.auto else None,
            step_mode=True if args.step else None,
            report_language=args.language,
        )
    return None


def _check_plan(plan: Any, question: str, config: RunConfig) -> None:
    """Refuse a supplied plan the run would refuse; with --auto, say which branches the budget cannot fund."""
    from research_core.planning.budget import fund_branches, funding_note
    from research_core.planning.plan import PlanError, validate_plan

    try:
        checked = validate_plan(plan, question, config=config)
    except PlanError as exc:
        raise CliError(f"The plan is invalid: {exc}") from None
    if not config.auto_approve:
        return  # the review gate shows the budget before anything runs
    subs = checked.sub_questions
    funding = fund_branches(
        config.max_iterations,
        [sq.priority for sq in subs],
        config.sub_question_min_iterations,
        config.sub_question_max_iterations,
    )
    note = funding_note(funding, [sq.id for sq in subs], config.max_iterations)
    if note:
        _progress(f"warning: {note}")


def _finish(runner: Runner, snap: RunSnapshot, out: Path | None, json_out: Path | None) -> int:
    if snap.status in ("awaiting_review", "awaiting_step"):
        _print_gate(runner, snap)
        return 0
    if snap.status == "failed":
        print(f"arbor: run {snap.run_id} failed: {snap.error}", file=sys.stderr)
        print(
            f"arbor: everything gathered so far is saved; retry with: {_resume_command(runner, snap.run_id)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    if snap.status == "cancelled":
        print(f"Run {snap.run_id} was cancelled.")
        return 0
    result = runner.result(snap.run_id)
    if result is None:
        print(
            f"arbor: run {snap.run_id} is {snap.status}; resume it with: {_resume_command(runner, snap.run_id)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    from research_core.output.export import export_result

    if out is not None:
        _write(out, export_result(result, "md")[0], runner, "--out")
    if json_out is not None:
        _write(json_out, export_result(result, "json")[0], runner, "--json")
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


def _print_hypotheses(branches: list[dict[str, Any]]) -> None:
    """One line per hypothesis of a hypothesis-mode run: its verdict, confidence and pivot."""
    tested = [b for b in branches if b.get("kind") == "hypothesis"]
    if not tested:
        return
    print("Hypotheses:", file=sys.stderr)
    for b in tested:
        h = b.get("hypothesis") or {}
        verdict = h.get("verdict") or ("skipped" if b.get("status") == "skipped" else "not judged")
        confidence = f" (confidence {h['confidence']}/10)" if h.get("confidence") is not None else ""
        print(f"  {b['id']} {verdict}{confidence}: {b.get('question_text', '')}", file=sys.stderr)
        if h.get("pivot"):
            print(f"      pivot: {h['pivot']}", file=sys.stderr)


def _compare(runner: Runner, args: argparse.Namespace, config: RunConfig | None) -> int:
    from research_core.compare import compare_modes, compare_runs

    if args.runs:
        comparison = compare_runs(runner, *args.runs)
    elif args.question and config is not None:
        comparison = compare_modes(runner, args.question, config, in_parallel=not args.sequential)
    else:
        raise CliError("give a QUESTION to run both modes, or --runs RUN_A RUN_B")
    if args.json:
        _write(args.json, comparison.model_dump_json(indent=2), runner, "--json")
    fields = [
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
    ]
    a, b = comparison.runs
    print(f"{'':<20} {a.run_id:>28} {b.run_id:>28}")
    for f in fields:
        print(f"{f:<20} {getattr(a, f)!s:>28} {getattr(b, f)!s:>28}")
    for criterion, winner in comparison.judgement.items():
        print(f"{criterion:<20} {winner}")
    for e in comparison.judge_errors:
        print(f"arbor: warning: the judge failed once: {e}", file=sys.stderr)
    return 0


def _library(args: argparse.Namespace) -> int:
    from research_core.search.library import DocumentLibrary, LibraryError
    from research_core.store import default_db_path

    lib = DocumentLibrary(args.db or default_db_path())
    if args.library_command == "add":
        failures = 0
        for path in args.paths:
            try:
                doc = lib.add_file(path)
                print(f"added {doc.id}  {path}  ({doc.chars:,} characters)")
            except (LibraryError, OSError) as exc:
                failures += 1
                print(f"arbor: {path}: {exc}", file=sys.stderr)
        return EXIT_USAGE if failures else 0
    if args.library_command == "search":
        for s in lib.search(args.terms, args.limit):
            print(f"[{s.relevance:.2f}] {s.title}  {s.url}\n    {s.snippet[:200]}")
        return 0
    if args.library_command == "list":
        for d in lib.list_documents():
            print(f"{d.id}  {d.title}  ({d.kind}, {d.chars:,} characters)")
        return 0
    if args.library_command == "remove":
        if not lib.remove(args.doc_id):
            raise CliError(f"no document with id {args.doc_id!r}")
        print(f"removed {args.doc_id}")
        return 0
    return EXIT_USAGE


def run_command(args: argparse.Namespace) -> int:
    """Execute one parsed command; returns the exit code.

    Sets `args.resume_hint` to the command that continues the run once a run is known, for the
    message after Ctrl-C.
    """
    problem = check_numbers(args, NUMBER_OPTIONS)
    if problem:
        raise CliError(problem)
    _check_files(args)
    if args.command == "library":
        return _library(args)
    runner = _runner(args)
    config = _command_config(args)
    plan = _read_json(args.plan) if args.command == "run" and args.plan else None
    if plan is not None and config is not None:
        _check_plan(plan, args.question, config)  # refused, or its budget said, before the run starts

    def created(run_id: str, note: str = "") -> None:
        args.resume_hint = _resume_command(runner, run_id)
        _progress(f"run id {run_id}{note} started; resume with: {args.resume_hint}")

    if args.command == "decompose":
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
            _write(args.json, text + "\n", runner, "--json")
        print(text)
        for w in warnings:
            print(f"arbor: warning: {w}", file=sys.stderr)
        return 0
    if args.command == "run":
        snap = runner.start(args.question, config, plan=plan, on_created=created)
        return _finish(runner, snap, args.out, args.json)
    if args.command == "resume":
        snap = runner.snapshot(args.run_id)
        _use_run_llm(runner, args, args.run_id)
        _ignored_on_resume(args)
        answer: Any = None
        if args.answer is not None:
            candidate = Path(args.answer)
            if candidate.suffix.lower() == ".json":
                answer = _answer_from_file(_read_json(candidate), snap.pending or {})
            else:
                answer = args.answer
        args.resume_hint = _resume_command(runner, args.run_id)
        snap = runner.resume(args.run_id, answer)
        return _finish(runner, snap, args.out, args.json)
    if args.command == "compare":
        return _compare(runner, args, config)
    if args.command == "rerun":
        _use_run_llm(runner, args, args.run_id)
        _ignored_on_resume(args)
        snap = runner.rerun_branch(
            args.run_id,
            args.branch_id,
            question_text=args.question,
            priority=args.priority,
            on_created=lambda run_id: created(run_id, f" (re-run of {args.branch_id} from {args.run_id})"),
        )
        return _finish(runner, snap, args.out, args.json)
    if args.command == "runs":
        rows = runner.runs()
        if not rows:
            print('No runs yet. Start one with: python -m research_core run "your question"')
        for r in rows:
            totals = json.loads(r["totals_json"]) if r.get("totals_json") else {}
            cost = f"${totals['cost_usd']:.4f}" if "cost_usd" in totals else "-"
            mode = r["mode"] or "-"
            print(f"{r['id']}  {r['status']:<24} {mode:<12} {r['created_at']}  {cost:>9}  {r['question'][:60]}")
        return 0
    if args.command == "show":
        snap = runner.snapshot(args.run_id)
        print(f"{snap.run_id}: {snap.status} ({snap.mode}) — {snap.question}")
        for b in snap.branches:
            print(
                f"  {b['id']} {b['status']:<12} {b.get('iteration_count', 0)}/{b.get('allocated_iterations', 0)} it.  "
                f"{b['question_text']}"
            )
        if snap.error:
            print(f"error: {snap.error}")
        if snap.pending:
            _print_gate(runner, snap)
        return 0
    if args.command == "export":
        from research_core.output.export import export_result

        result = runner.result(args.run_id)
        if result is None:
            raise CliError(f"run {args.run_id} has not finished; nothing to export yet")
        content, _name, _mime = export_result(result, args.format)
        _write(args.out, content, runner, "--out")
        print(f"wrote {args.out}")
        return 0
    if args.command == "delete":
        if not runner.delete(args.run_id):
            raise CliError(f"no run with id {args.run_id!r}")
        print(f"deleted {args.run_id}")
        return 0
    return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, run, and turn user errors into one line on stderr.

    Everything printed is cleaned for the terminal; SIGTERM and SIGHUP stop a command like Ctrl-C.
    """
    with clean_output_streams(), stop_signals_interrupt(on_stop=stop_new_calls):
        try:
            return _main(argv)
        finally:
            allow_new_calls()


def _main(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="arbor: %(message)s")
    try:
        return run_command(args)
    except (CliError, RunError) as exc:
        _say_error(str(exc))
        return EXIT_USAGE
    except ValidationError as exc:  # settings built from flags and the environment
        _say_error(_validation_line(exc, LLMSettings))
        return EXIT_USAGE
    except KeyboardInterrupt as exc:
        how = f"stopped by {exc.name}" if isinstance(exc, Stopped) else "interrupted"
        hint = getattr(args, "resume_hint", None)
        if hint:
            _say_error(f"{how}; everything gathered so far is saved; resume with: {hint}")
        else:
            _say_error(how)
        return exit_code(exc)
    except Exception as exc:  # the engine's own errors carry a user message
        message = getattr(exc, "user_message", None) or f"{type(exc).__name__}: {exc}"
        _say_error(message)
        return EXIT_FAILED
    finally:
        try:
            from research_core.llm.local_model import stop_shared_server

            stop_shared_server()
        except ImportError:
            pass


def _say_error(message: str) -> None:
    """Print `arbor: MESSAGE` on stderr as one line; a closed terminal (SIGHUP) is not an error."""
    lines = [line.strip() for line in strip_url_secrets_in_text(message).splitlines() if line.strip()]
    with contextlib.suppress(OSError):
        print(f"arbor: {lines[0] if lines else message}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
