"""The research forms (New research, Compare): their choices, and the one step from a form to a RunConfig.

A page reads its widgets into a `ResearchForm` and calls `run_config_from_form`; what a blank or
"auto" choice means is decided here, once, for every form that starts a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from research_core.configuration import TEMPLATES, RunConfig, build_run_config, detect_template
from ui.settings_store import AppSettings

EXAMPLES = [
    "Compare SQLite, PostgreSQL and DuckDB for a small analytics web app",
    "What are the causes and effects of urban heat islands, and which mitigations work best?",
    "Evaluate the evidence for and against a four-day work week",
    "What is retrieval-augmented generation?",
]

DRILL_CHOICES = {
    "template": "as the template says",
    "superficial": "superficial",
    "adequate": "superficial or adequate",
}
MODES = {
    "auto": "Auto (classify the question)",
    "flat": "Flat (one research loop)",
    "hierarchical": "Hierarchical (tree of sub-questions)",
    "hypothesis": "Hypothesis (propose and test hypotheses)",
}
MODE_HELP = {
    "auto": "Simple questions run as one research loop, complex ones as a tree of sub-questions.",
    "flat": "One research loop on the whole question; quickest for a single fact or definition.",
    "hierarchical": "Splits the question into sub-questions you can edit, researches each, then combines them.",
    "hypothesis": "Proposes testable answers, researches each, and judges it validated, refuted or inconclusive; "
    "a refuted one may pivot to a better hypothesis.",
}
EXECUTIONS = {"auto": "Automatic", "step": "Step by step (pause after each branch)"}


@dataclass(frozen=True)
class ResearchForm:
    """What a research form asks for.

    `None` leaves a value to the template (or to `RunConfig`'s default); so do mode "auto",
    drill-down "template" and a blank report language.
    """

    question: str
    search_backends: Sequence[str]
    template: str = "auto"
    mode: str = "auto"
    step_mode: bool | None = None
    max_iterations: int | None = None
    parallel: int | None = None
    max_total_cost_usd: float | None = None
    report_language: str = ""
    max_depth: int | None = None
    drill_down_on: str = "template"
    adaptive_plan: bool | None = None
    verify_citations: bool | None = None
    coverage_check: bool | None = None
    sticky_backends: Sequence[str] = ()
    searxng_url: str | None = None
    read_pages: bool | None = None
    fetch_private_addresses: bool | None = None


def searxng_problem(search_backends: Sequence[str], searxng_url: str | None) -> str | None:
    """The form's error when SearXNG is chosen without a URL to reach it (the saved settings'), else None."""
    if "searxng" in search_backends and not searxng_url:
        return "SearXNG needs its URL: set it on the Settings page, or choose another backend."
    return None


def reading_settings(settings: AppSettings) -> dict[str, Any]:
    """The saved reading settings every research form passes on: SearXNG address, page reading, private addresses."""
    return {
        "searxng_url": settings.searxng_url,
        "read_pages": settings.read_pages,
        "fetch_private_addresses": settings.fetch_private_addresses,
    }


def run_config_from_form(form: ResearchForm) -> RunConfig:
    """The RunConfig of a research form: the template (or the one detected from the question), then the form.

    Mode "auto" and drill-down "template" leave the choice to the template; a blank report
    language means the question's; a sticky backend counts only when it is also chosen; a run
    started from a form always stops for the plan review. Raises `ValidationError` when the
    limits do not fit together and `ValueError` for an unknown template.
    """
    return build_run_config(
        form.template,
        form.question,
        mode=None if form.mode == "auto" else form.mode,
        step_mode=form.step_mode,
        auto_approve=False,
        max_iterations=form.max_iterations,
        parallel=form.parallel,
        max_total_cost_usd=form.max_total_cost_usd,
        search_backends=list(form.search_backends),
        report_language=form.report_language.strip() or None,
        max_depth=form.max_depth,
        drill_down_on=None if form.drill_down_on == "template" else form.drill_down_on,
        adaptive_plan=form.adaptive_plan,
        verify_citations=form.verify_citations,
        coverage_check=form.coverage_check,
        sticky_backends=[b for b in form.sticky_backends if b in form.search_backends],
        searxng_url=form.searxng_url,
        read_pages=form.read_pages,
        fetch_private_addresses=form.fetch_private_addresses,
    )


def effective_template(choice: str, question: str) -> str:
    """The template a run would use: the chosen one, or on auto the one detected from the question."""
    if choice != "auto":
        return choice
    return detect_template(question) if question.strip() else "general"


def template_iterations(name: str, default: int) -> int:
    """The iteration budget of a template; templates without one use `default` (the Settings page's)."""
    return int(TEMPLATES.get(name, {}).get("max_iterations", default))
