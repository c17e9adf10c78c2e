"""The Settings page's form: which endpoint the saved settings name, and the settings a filled form gives.

Pure functions, so the rules (an endpoint choice to provider, base URL and models; the pricing
table to prices) are testable without a browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from research_core.configuration import LOCAL_MODEL_LABEL, LOCAL_MODEL_NAME, OPENAI_DEFAULT_BASE_URL
from ui.settings_store import AppSettings

ENDPOINTS = {
    "local": f"Embedded local model ({LOCAL_MODEL_LABEL}, no key needed)",
    "openai": "OpenAI",
    "compatible": "OpenAI-compatible server (Ollama, vLLM, LM Studio, llama.cpp …)",
}
# The working model offered for an OpenAI endpoint (as `LLMSettings.from_env` picks without ARBOR_LLM_MODEL).
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"


def endpoint_of(settings: AppSettings) -> str:
    """The endpoint choice of saved settings: local, OpenAI itself, or another OpenAI-compatible server."""
    if settings.provider == "local":
        return "local"
    if settings.base_url in (None, OPENAI_DEFAULT_BASE_URL):
        return "openai"
    return "compatible"


def pricing_from_records(records: Iterable[Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    """Prices per model from the pricing table's rows; rows without a model name are skipped.

    Raises ValueError naming the model when a price is missing or negative.
    """
    pricing: dict[str, tuple[float, float]] = {}
    for row in records:
        name = str(row.get("model") or "").strip()
        if not name:
            continue
        values = (row.get("input"), row.get("output"))
        if any(v is None or pd.isna(v) or float(v) < 0 for v in values):
            raise ValueError(f"Pricing of {name}: enter two prices of 0 or more.")
        pricing[name] = (float(values[0]), float(values[1]))
    return pricing


def llm_fields(endpoint: str, base_url: str, model: str, synthesis_model: str) -> dict[str, Any]:
    """Provider, base URL and models for an endpoint choice.

    The embedded model has its own model name and no synthesis model; OpenAI itself has no base
    URL; an OpenAI-compatible server needs one (ValueError otherwise). A blank working model is
    `DEFAULT_OPENAI_MODEL`, a blank synthesis model means the working model.
    """
    if endpoint == "compatible" and not base_url.strip():
        raise ValueError("Enter the base URL of the OpenAI-compatible server, e.g. http://localhost:11434/v1.")
    return {
        "provider": "local" if endpoint == "local" else "openai",
        "base_url": None if endpoint != "compatible" else base_url,
        "model": LOCAL_MODEL_NAME if endpoint == "local" else (model.strip() or DEFAULT_OPENAI_MODEL),
        "synthesis_model": (synthesis_model.strip() or None) if endpoint != "local" else None,
    }
