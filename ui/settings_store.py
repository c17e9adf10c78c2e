"""Non-secret app settings, persisted as JSON next to the database.

Values come from three layers, the later winning: built-in defaults, environment variables
(`OPENAI_BASE_URL`, `OPENAI_API_KEY` presence, `ARBOR_LLM_MODEL`, `ARBOR_SEARCH`, `ARBOR_SEARXNG_URL`), then what the
user saved on the Settings page. API keys are never part of these settings: `save_settings`
refuses to write anything that looks like one.
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from research_core.configuration import (
    DEFAULT_PRICING,
    LOCAL_MODEL_LABEL,
    TEMPLATES,
    LLMProvider,
    LLMSettings,
    RunConfig,
    clean_service_url,
    field_bounds,
)

logger = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
KNOWN_BACKENDS: dict[str, str] = {
    "ddg": "Web (DuckDuckGo)",
    "searxng": "Web (SearXNG)",
    "library": "Document library",
}
# Field names that must never reach the settings file.
_SECRET_FIELD = re.compile(r"key|secret|token|password", re.IGNORECASE)
_SECRET_VALUE = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{4,}")


def engine_default(model: type[BaseModel], name: str, **constraints: Any) -> Any:
    """A field whose default, description and bounds are the engine's `model.name`.

    The engine's `LLMSettings` and `RunConfig` are the one home of each default and range; the Settings
    page only adds limits of its own where the engine has none (`constraints`, e.g. `le=3600`).
    """
    source = model.model_fields[name]
    limits = {**field_bounds(model, name), **constraints}
    if source.default_factory is not None:
        return Field(default_factory=source.default_factory, description=source.description, **limits)
    return Field(default=source.default, description=source.description, **limits)


class AppSettings(BaseModel):
    """What the Settings page edits: LLM endpoint and models, search, pricing, default limits.

    Every field the engine also has takes its default from `LLMSettings` or `RunConfig`.
    """

    model_config = ConfigDict(extra="ignore")

    provider: LLMProvider = engine_default(LLMSettings, "provider")
    base_url: str | None = engine_default(LLMSettings, "base_url")
    model: str = engine_default(LLMSettings, "model")
    synthesis_model: str | None = engine_default(LLMSettings, "synthesis_model")
    timeout_s: float = engine_default(LLMSettings, "timeout_s", gt=0, le=3600)
    search_backends: list[str] = engine_default(RunConfig, "search_backends")
    searxng_url: str | None = engine_default(RunConfig, "searxng_url")
    read_pages: bool = engine_default(RunConfig, "read_pages")
    fetch_private_addresses: bool = engine_default(RunConfig, "fetch_private_addresses")
    pricing: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(DEFAULT_PRICING))
    template: str = Field(default="auto", description="Default template on New research")
    max_iterations: int = engine_default(RunConfig, "max_iterations")
    parallel: int = engine_default(RunConfig, "parallel")
    max_total_cost_usd: float = engine_default(RunConfig, "max_total_cost_usd")
    step_mode: bool = engine_default(RunConfig, "step_mode")

    @field_validator("base_url")
    @classmethod
    def _clean_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not value:
            return None
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError("the base URL must start with http:// or https://")
        return value

    @field_validator("searxng_url")
    @classmethod
    def _clean_searxng_url(cls, value: str | None) -> str | None:
        return clean_service_url(value, "the SearXNG URL")

    @field_validator("search_backends")
    @classmethod
    def _known_backends(cls, value: list[str]) -> list[str]:
        return list(dict.fromkeys(v.strip() for v in value if v.strip()))

    @field_validator("template")
    @classmethod
    def _known_template(cls, value: str) -> str:
        return value if value == "auto" or value in TEMPLATES else "auto"

    def llm_settings(self) -> LLMSettings:
        """The engine's LLM settings for these app settings."""
        return LLMSettings(
            provider=self.provider,
            base_url=self.base_url if self.provider == "openai" else None,
            model=self.model,
            synthesis_model=self.synthesis_model or None,
            timeout_s=self.timeout_s,
        )

    def endpoint_label(self) -> str:
        """A short description of where LLM calls go."""
        return self.llm_settings().endpoint_label()

    def model_label(self) -> str:
        """The working model as the workbench names it: the configured model, or the embedded one's label."""
        return self.model if self.provider == "openai" else LOCAL_MODEL_LABEL


def settings_path(db_path: Path | str) -> Path:
    """The settings file: `settings.json` in the database's folder."""
    return Path(db_path).resolve().parent / SETTINGS_FILE


def env_defaults() -> dict[str, Any]:
    """Defaults taken from the environment (they fill gaps; saved settings win)."""
    values: dict[str, Any] = {}
    llm = LLMSettings.from_env()
    values["provider"] = llm.provider
    values["model"] = llm.model
    if llm.base_url:
        values["base_url"] = llm.base_url
    search = os.environ.get("ARBOR_SEARCH")
    if search is not None:
        values["search_backends"] = [s.strip() for s in search.split(",") if s.strip()]
    searxng = os.environ.get("ARBOR_SEARXNG_URL", "").strip()
    if searxng:
        values["searxng_url"] = searxng
    return values


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, json.JSONDecodeError) as exc:
        logger.warning("Ignoring unreadable settings file %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def load_settings(db_path: Path | str) -> AppSettings:
    """Defaults, then environment, then the saved file; an invalid file falls back to the rest."""
    values = env_defaults()
    saved = _read_file(settings_path(db_path))
    merged = {**values, **{k: v for k, v in saved.items() if not _SECRET_FIELD.search(k)}}
    try:
        return AppSettings.model_validate(merged)
    except ValidationError as exc:
        logger.warning("Ignoring invalid saved settings: %s", exc.errors()[0]["msg"])
        return AppSettings.model_validate(values)


def assert_no_secrets(data: dict[str, Any]) -> None:
    """Raise ValueError if `data` has a secret-looking field name or value."""
    for name, value in data.items():
        if _SECRET_FIELD.search(name):
            raise ValueError(f"refusing to store the secret field {name!r}")
        if _SECRET_VALUE.search(json.dumps(value)):
            raise ValueError(f"refusing to store what looks like an API key in {name!r}")


def save_settings(db_path: Path | str, settings: AppSettings) -> Path:
    """Write the settings (never an API key) atomically; returns the file's path."""
    path = settings_path(db_path)
    data = settings.model_dump(mode="json")
    assert_no_secrets(data)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def mask_secret(value: str | None) -> str:
    """Show a key without revealing it: `sk-…1234` (short keys show only their prefix)."""
    if not value:
        return "not set"
    if len(value) < 12:
        return f"{value[:3]}…" + " (" + str(len(value)) + " characters)"
    return f"{value[:3]}…{value[-4:]}"
