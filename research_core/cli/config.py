"""What a command starts from: its runner and LLM settings, its run configuration, the JSON files it reads.

Everything here turns a bad flag or file into one `CliError` line.
"""

from __future__ import annotations

import argparse
import difflib
import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from research_core.cli.errors import CliError
from research_core.cli.options import field_error
from research_core.cli.output import report_progress
from research_core.configuration import LLMSettings, RunConfig, build_run_config, resolve_llm_settings
from research_core.runs.heap import freeze_startup_heap
from research_core.runs.runner import Runner
from research_core.search.registry import parse_backend_names, searxng_url_from
from research_core.text.sanitize import strip_url_secrets


def set_values(pairs: list[str]) -> dict[str, Any]:
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


def llm_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The LLM settings given as --llm* flags (None where a flag is not given)."""
    return {
        "provider": args.llm,
        "base_url": args.llm_base_url,
        "model": args.llm_model,
        "synthesis_model": args.synthesis_model,
        "timeout_s": args.llm_timeout,
    }


def llm_settings(args: argparse.Namespace) -> LLMSettings:
    """The LLM settings of a command: its --llm* flags, the environment for the rest."""
    return LLMSettings.from_env(**llm_flags(args))


def make_runner(args: argparse.Namespace) -> Runner:
    """The Runner of a command, on its database and LLM settings, reporting progress on stderr."""
    freeze_startup_heap()
    return Runner(args.db, llm_settings=llm_settings(args), progress=report_progress)


def use_run_llm(runner: Runner, args: argparse.Namespace, run_id: str) -> None:
    """Continue `run_id` with the LLM it started with; explicit --llm* flags override it."""
    stored = runner.llm_record(run_id)
    if stored is None:
        return
    settings = resolve_llm_settings(stored, **llm_flags(args))
    runner.use_llm_settings(settings)
    default = "the embedded model" if settings.provider == "local" else "api.openai.com"
    where = strip_url_secrets(settings.base_url) if settings.base_url else default
    report_progress(f"LLM: {settings.provider}, {settings.model} at {where}")


def warn_ignored_on_resume(args: argparse.Namespace) -> None:
    """Warn that limits and search flags given to resume or rerun do not apply: a run keeps its own."""
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
        report_progress(
            f"warning: {', '.join(given)} {verb} only when a run starts; this run keeps the limits it started with"
        )


def backend_names(args: argparse.Namespace) -> list[str] | None:
    """The search backends named by --search (None when not given); an unknown name is a CliError."""
    if args.search is None:
        return None
    try:
        return parse_backend_names(args.search)
    except ValueError as exc:
        raise CliError(f"--search: {exc}") from None


def run_config(args: argparse.Namespace, question: str, **extra: Any) -> RunConfig:
    """The RunConfig of a command: the template, then --set, then the named flags, then `extra`.

    A value out of range, an unknown field or SearXNG without a URL is one CliError line.
    """
    backends = backend_names(args)
    try:
        # --set first, then the named flags, then what the command itself decides
        overrides = set_values(getattr(args, "set", None) or [])
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
        raise CliError(validation_line(exc, RunConfig)) from None
    except ValueError as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    if "searxng" in config.search_backends and config.searxng_url is None:
        raise CliError("--search searxng needs the instance's URL: --searxng-url URL, or set ARBOR_SEARXNG_URL")
    return config


def validation_line(exc: ValidationError, model: type[RunConfig] | type[LLMSettings]) -> str:
    """The first error of a validation as one line: the field, its allowed range and the value given."""
    first = exc.errors()[0]
    field = ".".join(str(x) for x in first["loc"]) or "configuration"
    reason = field_error(model, field, first.get("input")) if first["loc"] else None
    where = f"--set {field}" if model is RunConfig else field
    if reason:
        return f"{where}: {reason}"
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if first["loc"] else message


def read_json(path: Path) -> Any:
    """The JSON content of a file the user gave (--plan, --answer); a missing or broken file is a CliError."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError(f"{path}: file not found") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None


def command_config(args: argparse.Namespace) -> RunConfig | None:
    """The run configuration of a command that starts research (decompose, run, compare QUESTION)."""
    if args.command == "decompose" or (args.command == "compare" and args.question and not args.runs):
        return run_config(args, args.question)
    if args.command == "run":
        return run_config(
            args,
            args.question,
            mode=args.mode,
            auto_approve=True if args.auto else None,
            step_mode=True if args.step else None,
            report_language=args.language,
        )
    return None
