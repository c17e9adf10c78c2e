"""Numeric options: ranges read from the models that own the values, described in words."""

from __future__ import annotations

import argparse

import pytest

from research_core.cli.options import NumberOption, OneLineParser, describe_range, field_error, field_option
from research_core.configuration import LLMSettings, RunConfig


@pytest.mark.parametrize(
    ("kind", "bounds", "text"),
    [
        (int, {"ge": 1, "le": 16}, "a whole number from 1 to 16"),
        (float, {"gt": 0}, "a number greater than 0"),
        (float, {"ge": 0.0}, "a number of 0 or more"),
        (int, {"ge": 1}, "a whole number of 1 or more"),
        (float, {"gt": 0, "lt": 1}, "a number greater than 0 and less than 1"),
        (int, {}, "a whole number"),
    ],
)
def test_describe_range(kind, bounds, text):
    assert describe_range(kind, bounds) == text


def test_field_options_take_their_range_from_the_model():
    timeout = field_option("--llm-timeout", LLMSettings, "timeout_s")
    assert (timeout.dest, timeout.kind, timeout.bounds) == ("llm_timeout", float, {"gt": 0})
    assert timeout.check(0.5) is None
    assert timeout.check(0.0) == "--llm-timeout: timeout_s must be a number greater than 0, not 0.0"
    assert timeout.check(float("inf")) is not None and timeout.check(float("nan")) is not None
    parallel = field_option("--parallel", RunConfig, "parallel")
    assert parallel.check(16) is None and "from 1 to 16, not 17" in parallel.check(17)
    with pytest.raises(argparse.ArgumentTypeError, match="from 1 to 16, not 'two'"):
        parallel.parse("two")


def test_field_error_for_set_values():
    assert field_error(RunConfig, "max_depth", 9) == "must be a whole number from 1 to 4, not 9"
    assert field_error(RunConfig, "max_depth", 2) is None
    assert field_error(RunConfig, "max_depth", True) is not None
    assert field_error(RunConfig, "drill_down_on", "x") is None  # not numeric: pydantic's message is used
    assert NumberOption("--limit", "limit", int, {"ge": 1}).check(None) is None


def test_parser_errors_are_one_line(capsys):
    parser = OneLineParser(prog="arbor-test")
    parser.add_argument("--n", type=int)
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["--n", "x"])
    assert info.value.code == 2
    assert capsys.readouterr().err == "arbor: --n: invalid int value: 'x' (see arbor-test --help)\n"
