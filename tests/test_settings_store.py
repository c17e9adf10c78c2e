"""AppSettings shares its defaults with the engine's LLMSettings and RunConfig."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from research_core.configuration import LLMSettings, RunConfig
from ui.settings_store import AppSettings, engine_default

LLM_FIELDS = ("provider", "base_url", "model", "synthesis_model", "timeout_s")
RUN_FIELDS = (
    "search_backends",
    "searxng_url",
    "read_pages",
    "fetch_private_addresses",
    "max_iterations",
    "parallel",
    "max_total_cost_usd",
    "step_mode",
)


def test_every_shared_default_is_the_engines() -> None:
    settings, llm, run = AppSettings(), LLMSettings(), RunConfig()
    for name in LLM_FIELDS:
        assert getattr(settings, name) == getattr(llm, name), name
    for name in RUN_FIELDS:
        assert getattr(settings, name) == getattr(run, name), name


def test_list_defaults_are_not_shared_between_instances() -> None:
    first = AppSettings()
    first.search_backends.append("searxng")
    assert AppSettings().search_backends == RunConfig().search_backends


def test_the_forms_own_bounds_still_apply() -> None:
    for values in ({"max_iterations": 501}, {"parallel": 17}, {"timeout_s": 3601}, {"max_total_cost_usd": -1}):
        with pytest.raises(ValidationError):
            AppSettings(**values)


def test_engine_default_copies_default_and_description() -> None:
    class Engine(BaseModel):
        limit: int = 7
        names: list[str] = ["a"]

    class Form(BaseModel):
        limit: int = engine_default(Engine, "limit", le=10)
        names: list[str] = engine_default(Engine, "names")

    assert Form().limit == 7 and Form().names == ["a"]
    with pytest.raises(ValidationError):
        Form(limit=11)
    assert (
        AppSettings.model_fields["max_iterations"].description == RunConfig.model_fields["max_iterations"].description
    )
