"""The one step from a research form (New research, Compare) to a RunConfig."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research_core.configuration import TEMPLATES, RunConfig, build_run_config
from ui.run_form import (
    ResearchForm,
    effective_template,
    run_config_from_form,
    searxng_problem,
    template_iterations,
)

COMPARE_QUESTION = "Compare SQLite and PostgreSQL for small web apps"
FACT_QUESTION = "What is retrieval-augmented generation?"


def form(**values) -> ResearchForm:
    return ResearchForm(**{"question": COMPARE_QUESTION, "search_backends": ["library"], **values})


def test_auto_choices_leave_the_decision_to_the_template() -> None:
    config = run_config_from_form(form(template="deep_dive", mode="auto", drill_down_on="template"))
    assert config.template == "deep_dive"
    assert config.mode == "hierarchical"
    assert config.drill_down_on == "adequate"


def test_explicit_choices_win_over_the_template() -> None:
    config = run_config_from_form(form(template="deep_dive", mode="flat", drill_down_on="superficial"))
    assert config.mode == "flat"
    assert config.drill_down_on == "superficial"


def test_auto_template_is_detected_from_the_question() -> None:
    assert run_config_from_form(form(template="auto")).template == "comparison"
    assert run_config_from_form(form(template="auto", question=FACT_QUESTION)).template == "quick_fact"


def test_a_blank_report_language_means_the_questions_own() -> None:
    assert run_config_from_form(form(report_language="   ")).report_language is None
    assert run_config_from_form(form(report_language=" German ")).report_language == "German"


def test_only_chosen_backends_can_be_sticky() -> None:
    config = run_config_from_form(form(search_backends=["ddg", "library"], sticky_backends=["library", "searxng"]))
    assert config.search_backends == ["ddg", "library"]
    assert config.sticky_backends == ["library"]


def test_a_form_never_skips_the_plan_review() -> None:
    assert run_config_from_form(form()).auto_approve is False


def test_unset_values_keep_the_defaults_and_false_or_zero_is_a_real_choice() -> None:
    defaults = RunConfig()
    config = run_config_from_form(form(template="general"))
    assert config.parallel == defaults.parallel
    assert config.max_total_cost_usd == defaults.max_total_cost_usd
    assert config.step_mode is False and config.read_pages is True
    chosen = run_config_from_form(
        form(
            template="general",
            max_total_cost_usd=0.0,
            adaptive_plan=False,
            verify_citations=False,
            coverage_check=False,
            read_pages=False,
            step_mode=True,
        )
    )
    assert chosen.max_total_cost_usd == 0.0
    assert (chosen.adaptive_plan, chosen.verify_citations, chosen.coverage_check, chosen.read_pages) == (
        False,
        False,
        False,
        False,
    )
    assert chosen.step_mode is True


def test_reading_settings_pass_through() -> None:
    config = run_config_from_form(
        form(searxng_url="http://localhost:8888/", read_pages=False, fetch_private_addresses=True)
    )
    assert config.searxng_url == "http://localhost:8888"
    assert config.read_pages is False
    assert config.fetch_private_addresses is True


@pytest.mark.parametrize("template", ["auto", *TEMPLATES])
def test_the_iteration_budget_is_the_forms_whatever_the_template(template: str) -> None:
    own = template_iterations(effective_template(template, COMPARE_QUESTION), 20)
    for iterations in (own, own + 3):
        config = run_config_from_form(form(template=template, max_iterations=iterations))
        assert config.max_iterations == iterations


def test_the_compare_form_gives_the_config_compare_always_built() -> None:
    config = run_config_from_form(
        form(template="auto", max_iterations=12, parallel=3, max_total_cost_usd=0.5, search_backends=["ddg"])
    )
    expected = build_run_config(
        "auto", COMPARE_QUESTION, max_iterations=12, parallel=3, max_total_cost_usd=0.5, search_backends=["ddg"]
    )
    assert config == expected


def test_limits_that_do_not_fit_are_refused() -> None:
    with pytest.raises(ValidationError):
        run_config_from_form(form(max_depth=9))
    with pytest.raises(ValueError, match="unknown template"):
        run_config_from_form(form(template="no_such_template"))


def test_effective_template() -> None:
    assert effective_template("academic", COMPARE_QUESTION) == "academic"
    assert effective_template("auto", COMPARE_QUESTION) == "comparison"
    assert effective_template("auto", "   ") == "general"


def test_template_iterations_fall_back_to_the_default() -> None:
    assert template_iterations("quick_fact", 20) == TEMPLATES["quick_fact"]["max_iterations"]
    assert template_iterations("general", 17) == 17
    assert template_iterations("no_such_template", 9) == 9


def test_searxng_without_a_url_is_the_one_form_error() -> None:
    message = "SearXNG needs its URL: set it on the Settings page, or choose another backend."
    assert searxng_problem(["library", "searxng"], None) == message
    assert searxng_problem(["searxng"], "") == message
    assert searxng_problem(["searxng"], "http://localhost:8888") is None
    assert searxng_problem(["library", "ddg"], None) is None
