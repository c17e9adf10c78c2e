"""A setting's bounds are written once, in RunConfig: the pages' inputs and the command line read them there."""

from __future__ import annotations

import pytest

from research_core.cli.main import main
from research_core.configuration import RunConfig, field_bounds, input_range
from tests.test_app_pages import app, no_exception, open_page

QUESTION = "Compare SQLite and PostgreSQL for small web apps"


def test_field_bounds_read_the_declared_range() -> None:
    assert field_bounds(RunConfig, "parallel") == {"ge": 1, "le": 16}
    assert field_bounds(RunConfig, "max_iterations") == {"ge": 1, "le": 500}
    assert input_range(RunConfig, "max_total_cost_usd") == {"min_value": 0.0, "max_value": None}


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["--max-iterations", str(field_bounds(RunConfig, "max_iterations")["le"] + 1)], "--max-iterations: "),
        (["--parallel", str(field_bounds(RunConfig, "parallel")["le"] + 1)], "--parallel: "),
        (["--set", f"max_iterations={field_bounds(RunConfig, 'max_iterations')['le'] + 1}"], "max_iterations"),
        (["--max-iterations", "0"], "--max-iterations: "),
    ],
)
def test_the_cli_refuses_a_value_outside_the_runconfig_bound_in_one_line(tmp_path, capsys, args, wanted) -> None:
    db = tmp_path / "a.db"
    assert main(["run", QUESTION, "--auto", "--db", str(db), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and wanted in err and "from 1 to " in err, err


def test_the_cli_accepts_the_bound_itself() -> None:
    from research_core.cli.parser import MAX_ITERATIONS, PARALLEL

    assert MAX_ITERATIONS.check(field_bounds(RunConfig, "max_iterations")["le"]) is None
    assert PARALLEL.check(field_bounds(RunConfig, "parallel")["le"]) is None


PAGE_INPUTS = [
    ("app_pages/new_research.py", "nr_max_iterations", "max_iterations"),
    ("app_pages/new_research.py", "nr_parallel", "parallel"),
    ("app_pages/new_research.py", "nr_max_depth", "max_depth"),
    ("app_pages/new_research.py", "nr_cost_cap", "max_total_cost_usd"),
    ("app_pages/settings.py", "set_max_iterations", "max_iterations"),
    ("app_pages/settings.py", "set_parallel", "parallel"),
    ("app_pages/settings.py", "set_cost_cap", "max_total_cost_usd"),
    ("app_pages/compare.py", "cmp_max_iterations", "max_iterations"),
]


@pytest.mark.parametrize(("page", "key", "setting"), PAGE_INPUTS)
def test_each_page_number_input_has_the_runconfig_bounds(env: dict, page: str, key: str, setting: str) -> None:
    at = open_page(app(), page)
    no_exception(at)
    widget = at.number_input(key=key)
    bounds = field_bounds(RunConfig, setting)
    assert widget.min == bounds["ge"]
    if "le" in bounds:
        assert widget.max == bounds["le"]
