"""Numeric options read by argparse and range-checked before a command runs; option errors in one line.

The ranges come from the pydantic models that own the values (`RunConfig`, `LLMSettings`), so the
command line and the engine cannot disagree. A bad value is refused with one line naming the
option, the allowed range and what was given, e.g.
`arbor: --llm-timeout: timeout_s must be a number greater than 0, not 0.0`; argparse's own errors
(an unknown option, a missing argument) are one line too.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

from pydantic import BaseModel

from research_core.cli.errors import EXIT_USAGE
from research_core.cli.terminal import clean_for_terminal
from research_core.configuration import field_bounds


def describe_range(kind: type, bounds: dict[str, float]) -> str:
    """`a whole number from 1 to 16`, `a number greater than 0`, `a number of 0 or more` ..."""
    noun = "a whole number" if kind is int else "a number"
    low = ("ge", bounds["ge"]) if "ge" in bounds else ("gt", bounds["gt"]) if "gt" in bounds else None
    high = ("le", bounds["le"]) if "le" in bounds else ("lt", bounds["lt"]) if "lt" in bounds else None
    if low and high and low[0] == "ge" and high[0] == "le":
        return f"{noun} from {low[1]:g} to {high[1]:g}"
    parts = []
    if low:
        parts.append(f"greater than {low[1]:g}" if low[0] == "gt" else f"of {low[1]:g} or more")
    if high:
        parts.append(f"less than {high[1]:g}" if high[0] == "lt" else f"of at most {high[1]:g}")
    return f"{noun} {' and '.join(parts)}" if parts else noun


def in_range(value: float, bounds: dict[str, float]) -> bool:
    """Whether `value` is finite and within `bounds`."""
    if not math.isfinite(value):
        return False
    return (
        ("gt" not in bounds or value > bounds["gt"])
        and ("ge" not in bounds or value >= bounds["ge"])
        and ("lt" not in bounds or value < bounds["lt"])
        and ("le" not in bounds or value <= bounds["le"])
    )


@dataclass(frozen=True)
class NumberOption:
    """A numeric option: its flag, the attribute argparse stores it in, its kind and its range.

    `parse` (argparse's `type`) only reads the number; `check` tests the range after parsing, so
    the command can refuse the value in one line and exit 2 without argparse's usage block.
    """

    flag: str
    dest: str
    kind: type
    bounds: dict[str, float]
    setting: str | None = None

    @property
    def wanted(self) -> str:
        """`timeout_s must be a number greater than 0` (the setting is named when there is one)."""
        prefix = f"{self.setting} " if self.setting else ""
        return f"{prefix}must be {describe_range(self.kind, self.bounds)}"

    @property
    def span(self) -> str:
        """`1-16`: the range for help texts (the bounds as written; `describe_range` says it in words)."""
        low = self.bounds.get("ge", self.bounds.get("gt"))
        high = self.bounds.get("le", self.bounds.get("lt"))
        return f"{'' if low is None else f'{low:g}'}-{'' if high is None else f'{high:g}'}"

    def parse(self, raw: str) -> Any:
        """Read the number; a value that is not one is refused naming the range."""
        try:
            return self.kind(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{self.wanted}, not {raw!r}") from None

    def check(self, value: Any) -> str | None:
        """`--flag: ... must be ..., not VALUE` when `value` is out of range, else None."""
        if value is None or in_range(float(value), self.bounds):
            return None
        return f"{self.flag}: {self.wanted}, not {value!r}"


def field_option(flag: str, model: type[BaseModel], field: str) -> NumberOption:
    """A NumberOption for a numeric field of `model`, with the field's own range."""
    kind = int if model.model_fields[field].annotation is int else float
    return NumberOption(flag, flag.lstrip("-").replace("-", "_"), kind, field_bounds(model, field), field)


def check_numbers(args: argparse.Namespace, options: Iterable[NumberOption]) -> str | None:
    """The first range error among the numeric options given, as one line; None when all are fine."""
    for option in options:
        problem = option.check(getattr(args, option.dest, None))
        if problem:
            return problem
    return None


def field_error(model: type[BaseModel], field: str, value: Any) -> str | None:
    """A one-line explanation when `value` is outside the range of a numeric field, else None."""
    if field not in model.model_fields:
        return None
    annotation = model.model_fields[field].annotation
    bounds = field_bounds(model, field)
    if annotation not in (int, float) or not bounds:
        return None
    kind = int if annotation is int else float
    wanted = describe_range(kind, bounds)
    if isinstance(value, bool) or not isinstance(value, int | float) or (kind is int and isinstance(value, float)):
        return f"must be {wanted}, not {value!r}"
    return None if in_range(float(value), bounds) else f"must be {wanted}, not {value!r}"


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr (exit code 2), not a usage block."""

    def error(self, message: str) -> NoReturn:
        """Print `arbor: MESSAGE (see PROG --help)` and exit with status 2."""
        if message.startswith("argument "):
            message = message[len("argument ") :]
        line = " ".join(message.split())
        sys.stderr.write(clean_for_terminal(f"arbor: {line} (see {self.prog} --help)") + "\n")
        sys.exit(EXIT_USAGE)
