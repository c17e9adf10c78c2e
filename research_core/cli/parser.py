"""The argument parser of `python -m research_core`: every command, its options and their help.

Numeric options only read their number here; their ranges are checked before a command runs
(`research_core.cli.options`), so a bad value is refused in one line.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from research_core.cli.options import NumberOption, OneLineParser, field_option
from research_core.configuration import TEMPLATES, LLMSettings, RunConfig
from research_core.gates import GATE_KINDS
from research_core.search.registry import known_backends
from research_core.storage.location import db_option

ANSWER_HELP = (
    "the answer to the run's open gate. Plan review: approve | cancel | PLAN.json (an edited plan from "
    "decompose or the gate). Step gate: continue | stop | EDITS.json (a list of {id, question_text?, priority?, "
    "skip?}). Drill-down: approve | reject | CHILDREN.json (a list of {question_text, priority}). Plan "
    "revision: accept | reject | CHANGES.json (the part of {add, drop, reprioritize} to keep). Any FILE.json "
    'may also hold the full answer object, e.g. {"action": "approve", ...}, and JSON may be given inline '
    "instead of a file; `gates --schema` prints each gate's answer object. The gate checks the answer first: a "
    "refused one is one line and exit code 2, and the gate stays open"
)

HERE_HELP = (
    "PostgreSQL store: research in this process instead of queueing the run for a `worker` and waiting for it "
    "(a SQLite store always researches here)"
)


# Numeric options, with the ranges of the settings they set; checked in `run_command`.
LLM_TIMEOUT = field_option("--llm-timeout", LLMSettings, "timeout_s")
MAX_COST = NumberOption("--max-cost", "max_cost", float, {"ge": 0.0}, "max_total_cost_usd")
MAX_ITERATIONS = field_option("--max-iterations", RunConfig, "max_iterations")
PARALLEL = field_option("--parallel", RunConfig, "parallel")
PRIORITY = NumberOption("--priority", "priority", float, {"ge": 0.0, "le": 1.0}, "priority")
LIMIT = NumberOption("--limit", "limit", int, {"ge": 1})
CONCURRENCY = NumberOption("--concurrency", "concurrency", int, {"ge": 1, "le": 16})
STALLED_AFTER = NumberOption("--stalled-after", "stalled_after", float, {"ge": 1.0, "le": 3600.0})
NUMBER_OPTIONS = (LLM_TIMEOUT, MAX_COST, MAX_ITERATIONS, PARALLEL, PRIORITY, LIMIT, CONCURRENCY, STALLED_AFTER)


def add_common_options(parser: argparse.ArgumentParser) -> None:
    """The options every command takes: the database, the LLM, search backends and the main limits."""
    g = parser.add_argument_group("common options")
    g.add_argument(
        "--db",
        type=db_option,
        default=None,
        help="SQLite file or postgresql:// URL (default: $ARBOR_DATABASE_URL, else $ARBOR_DB, else ./data/arbor.db)",
    )
    add_user_option(g)
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
    budget_help = f"total iteration budget ({MAX_ITERATIONS.span})"
    g.add_argument("--max-iterations", type=MAX_ITERATIONS.parse, default=None, help=budget_help)
    parallel_help = f"branches researched at once ({PARALLEL.span})"
    g.add_argument("--parallel", type=PARALLEL.parse, default=None, help=parallel_help)
    g.add_argument("-v", "--verbose", action="store_true", help="log what the engine does")


def add_user_option(group: Any) -> None:
    """--user: the account a command acts as when the database has accounts."""
    group.add_argument(
        "--user",
        default=None,
        metavar="NAME",
        help="the account to act as when the database has accounts (default: $ARBOR_USER); "
        "its password is read from $ARBOR_PASSWORD or asked",
    )


def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """`--set FIELD=VALUE` for any RunConfig limit, on the commands that start research."""
    fields = ", ".join(sorted(RunConfig.model_fields))
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help=f"set any run limit, e.g. --set max_depth=3 --set drill_down_on=adequate (fields: {fields})",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `python -m research_core`."""
    parser = OneLineParser(prog="python -m research_core", description="Arbor hierarchical research")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_research_commands(sub)
    _add_record_commands(sub)
    _add_library_commands(sub)
    _add_cache_commands(sub)
    _add_gates_command(sub)
    _add_worker_command(sub)
    _add_team_commands(sub)
    _add_users_commands(sub)
    return parser


# `sub` below is what ArgumentParser.add_subparsers returns.


def _add_research_commands(sub: Any) -> None:
    """decompose, run, resume, compare and rerun: the commands that research."""
    p = sub.add_parser("decompose", help="propose a plan of sub-questions for a question")
    p.add_argument("question")
    p.add_argument("--template", default="auto", choices=["auto", *TEMPLATES])
    p.add_argument("--json", type=Path, default=None, help="write the plan as JSON (editable, for run --plan)")
    add_limit_options(p)
    add_common_options(p)

    _add_run_command(sub)

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
    p.add_argument("--here", action="store_true", help=HERE_HELP)
    add_common_options(p)

    p = sub.add_parser("compare", help="run a question flat and hierarchical with the same budget, or compare 2 runs")
    p.add_argument("question", nargs="?", default=None)
    p.add_argument("--runs", nargs=2, metavar="RUN_ID", default=None, help="compare two finished runs instead")
    p.add_argument("--template", default="auto", choices=["auto", *TEMPLATES])
    p.add_argument("--sequential", action="store_true", help="run the two modes one after the other")
    p.add_argument("--json", type=Path, default=None, help="write the comparison as JSON")
    add_limit_options(p)
    add_common_options(p)

    p = sub.add_parser("rerun", help="re-research one branch of a finished run (a new, linked run)")
    p.add_argument("run_id")
    p.add_argument("branch_id")
    p.add_argument("--question", default=None, help="new text for the branch")
    p.add_argument("--priority", type=PRIORITY.parse, default=None, help="0 to 1")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--here", action="store_true", help=HERE_HELP)
    add_common_options(p)


def _add_run_command(sub: Any) -> None:
    """run: research a question, here or (--detach) in a worker."""
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
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--detach",
        action="store_true",
        help="PostgreSQL store only: queue the run for a `worker` process and print its id at once",
    )
    where.add_argument("--here", action="store_true", help=HERE_HELP)
    add_limit_options(p)
    add_common_options(p)


def _add_record_commands(sub: Any) -> None:
    """runs, show, export and delete: the commands over recorded runs."""
    p = sub.add_parser("runs", help="list runs")
    add_common_options(p)

    p = sub.add_parser("show", help="show a run's status and open gate")
    p.add_argument("run_id")
    add_common_options(p)

    p = sub.add_parser("export", help="export a finished run")
    p.add_argument("run_id")
    p.add_argument(
        "--format",
        choices=["md", "html", "json", "jsonl", "pdf", "docx"],
        default="md",
        help="jsonl: the execution log; pdf and docx are binary and need --output (or a pipe)",
    )
    p.add_argument("--output", "--out", dest="out", type=Path, help="the file to write (default: standard output)")
    add_common_options(p)

    p = sub.add_parser("delete", help="delete a run and its checkpoints")
    p.add_argument("run_id")
    add_common_options(p)


def _add_library_commands(sub: Any) -> None:
    """library add, search, list and remove."""
    lib = sub.add_parser("library", help="the local document library")
    lib_sub = lib.add_subparsers(dest="library_command", required=True)
    p = lib_sub.add_parser("add", help="index documents (.txt .md .html .pdf .docx .pptx .xlsx .csv)")
    p.add_argument("paths", nargs="+", type=Path)
    add_common_options(p)
    p = lib_sub.add_parser("search", help="search the library")
    p.add_argument("terms")
    p.add_argument("--limit", type=LIMIT.parse, default=5)
    add_common_options(p)
    p = lib_sub.add_parser("list", help="list indexed documents")
    add_common_options(p)
    p = lib_sub.add_parser("remove", help="remove a document by id")
    p.add_argument("doc_id")
    add_common_options(p)


def _add_cache_commands(sub: Any) -> None:
    """cache info and clear: the pages earlier runs read."""
    cache = sub.add_parser("cache", help="the page cache: pages earlier runs read")
    cache_sub = cache.add_subparsers(dest="cache_command", required=True)
    p = cache_sub.add_parser("info", help="how many pages the cache holds")
    add_common_options(p)
    p = cache_sub.add_parser("clear", help="empty the page cache (later runs fetch every page again)")
    add_common_options(p)


def _add_gates_command(sub: Any) -> None:
    """gates: what each gate accepts as an answer (no database, no LLM)."""
    p = sub.add_parser(
        "gates",
        help="list what each gate accepts as an answer, or print its JSON schema",
        description="The answers of the plan review, step, revision and drill-down gates. With --schema, the JSON "
        "schema of a gate's typed answer, which resume --answer also takes (inline or as a FILE.json).",
    )
    p.add_argument("kind", nargs="?", choices=GATE_KINDS, default=None, help="one gate (default: all four)")
    p.add_argument("--schema", action="store_true", help="print the JSON schema of the typed answer")


def _add_worker_command(sub: Any) -> None:
    """worker: drive queued runs (a PostgreSQL store only)."""
    p = sub.add_parser(
        "worker",
        help="take queued runs (run --detach) from a PostgreSQL store and research them",
        description="Research the runs queued in a PostgreSQL store (run --detach), each with the LLM settings it "
        "was started with, until SIGINT or SIGTERM (runs in progress finish first). A worker that stops answering "
        "for --stalled-after seconds is taken for dead and its runs resume, from their checkpoints, on another.",
    )
    p.add_argument("--concurrency", type=CONCURRENCY.parse, default=1, help=f"runs at once ({CONCURRENCY.span})")
    p.add_argument(
        "--stalled-after",
        type=STALLED_AFTER.parse,
        default=30.0,
        help=f"seconds without a heartbeat after which a worker is taken for dead ({STALLED_AFTER.span}; default 30)",
    )
    p.add_argument(
        "--db",
        type=db_option,
        default=None,
        help="postgresql:// URL (default: $ARBOR_DATABASE_URL)",
    )
    p.add_argument("-v", "--verbose", action="store_true", help="log what the worker and the engine do")


def _add_team_commands(sub: Any) -> None:
    """share and fork: a team's runs."""
    p = sub.add_parser(
        "share",
        help="share your run with the team (read-only for the others), or make it private again",
        description="Runs start private: only their owner sees them. A shared run is listed and opens read-only for "
        "every account, which may fork it. Needs a database with accounts to mean anything.",
    )
    p.add_argument("run_id")
    p.add_argument("--private", action="store_true", help="make the run yours alone again")
    add_common_options(p)

    p = sub.add_parser(
        "fork",
        help="copy a run you can read (its question, settings and plan) into a new run of yours",
        description="The copy stops at its plan review, whatever the original did: edit the plan, then "
        "`resume NEW_ID --answer approve` (or PLAN.json).",
    )
    p.add_argument("run_id")
    add_common_options(p)


def _add_users_commands(sub: Any) -> None:
    """users add, list, remove, set-role and passwd: the accounts of a team installation."""
    from research_core.accounts.records import ROLES

    users = sub.add_parser(
        "users",
        help="the accounts of a team installation: add, list, remove, set-role, passwd",
        description="Without accounts, the workbench and the CLI act as one local user. The first account added "
        "must be an admin; after that, these commands act as an admin (--user, password from $ARBOR_PASSWORD "
        "or asked).",
    )
    users_sub = users.add_subparsers(dest="users_command", required=True)
    p = users_sub.add_parser("add", help="add an account")
    p.add_argument("name", help="letters, digits and . _ @ + - (with OIDC: the e-mail address the provider gives)")
    p.add_argument("--role", choices=ROLES, required=True)
    _add_password_options(p)
    p = users_sub.add_parser("list", help="list the accounts")
    _add_account_db_options(p)
    p = users_sub.add_parser("remove", help="remove an account (its runs stay)")
    p.add_argument("name")
    _add_account_db_options(p)
    p = users_sub.add_parser("set-role", help="give an account another role")
    p.add_argument("name")
    p.add_argument("role", choices=ROLES)
    _add_account_db_options(p)
    p = users_sub.add_parser("passwd", help="set an account's password")
    p.add_argument("name")
    _add_password_options(p)


def _add_password_options(parser: argparse.ArgumentParser) -> None:
    """How a new password arrives: typed twice, one line of stdin, or none (OIDC sign-in only)."""
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--password-stdin", action="store_true", help="read the password from standard input (one line)")
    how.add_argument(
        "--no-password", action="store_true", help="no password: the account signs in through the OIDC provider only"
    )
    _add_account_db_options(parser)


def _add_account_db_options(parser: argparse.ArgumentParser) -> None:
    """The database and the acting admin of a users command."""
    g = parser.add_argument_group("common options")
    g.add_argument("--db", type=db_option, default=None, help="SQLite file or postgresql:// URL (as other commands)")
    add_user_option(g)
