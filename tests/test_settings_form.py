"""The Settings page's form rules: endpoint choice, pricing table, LLM fields."""

from __future__ import annotations

import math

import pytest

from research_core.configuration import LOCAL_MODEL_NAME, OPENAI_DEFAULT_BASE_URL
from ui.settings_form import DEFAULT_OPENAI_MODEL, endpoint_of, llm_fields, pricing_from_records
from ui.settings_store import AppSettings


def test_endpoint_of_saved_settings() -> None:
    assert endpoint_of(AppSettings()) == "local"
    assert endpoint_of(AppSettings(provider="openai")) == "openai"
    assert endpoint_of(AppSettings(provider="openai", base_url=OPENAI_DEFAULT_BASE_URL)) == "openai"
    assert endpoint_of(AppSettings(provider="openai", base_url="http://localhost:11434/v1")) == "compatible"


def test_pricing_skips_unnamed_rows_and_refuses_bad_prices() -> None:
    rows = [
        {"model": " gpt-4o-mini ", "input": 0.15, "output": 0.6},
        {"model": "", "input": 1.0, "output": 1.0},
        {"model": None, "input": None, "output": None},
        {"model": "local", "input": 0, "output": 0.0},
    ]
    assert pricing_from_records(rows) == {"gpt-4o-mini": (0.15, 0.6), "local": (0.0, 0.0)}
    for bad in (None, math.nan, -0.01):
        with pytest.raises(ValueError, match="Pricing of m: enter two prices of 0 or more"):
            pricing_from_records([{"model": "m", "input": 1.0, "output": bad}])


def test_the_embedded_model_has_its_own_name_and_no_synthesis_model() -> None:
    assert llm_fields("local", "http://ignored", "gpt-4o", "gpt-4o") == {
        "provider": "local",
        "base_url": None,
        "model": LOCAL_MODEL_NAME,
        "synthesis_model": None,
    }


def test_openai_has_no_base_url_and_blank_models_fall_back() -> None:
    assert llm_fields("openai", "http://ignored", "  ", " ") == {
        "provider": "openai",
        "base_url": None,
        "model": DEFAULT_OPENAI_MODEL,
        "synthesis_model": None,
    }
    assert llm_fields("openai", "", " gpt-4o ", " gpt-5 ")["model"] == "gpt-4o"
    assert llm_fields("openai", "", "gpt-4o", " gpt-5 ")["synthesis_model"] == "gpt-5"


def test_a_compatible_server_needs_its_base_url() -> None:
    with pytest.raises(ValueError, match="Enter the base URL"):
        llm_fields("compatible", "  ", "llama3", "")
    fields = llm_fields("compatible", "http://localhost:11434/v1", "llama3", "")
    assert fields["base_url"] == "http://localhost:11434/v1" and fields["provider"] == "openai"
