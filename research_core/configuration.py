"""RunConfig: the single source of every limit, tier and backend of a run, plus templates.

Explicit values win: a value the user sets (CLI flag, UI) overrides a template, and
environment variables only fill the defaults of the LLM endpoint.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

import annotated_types
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from research_core.net.credentials import remember
from research_core.text.sanitize import strip_url_secrets

logger = logging.getLogger(__name__)

LLMProvider = Literal["local", "openai"]

# USD per 1M tokens (input, output). Local models cost nothing; unknown models cost 0 and
# the cost report says the price is unknown.
DEFAULT_PRICING: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
}

# The embedded model: the name its server answers to, and how the workbench shows it.
LOCAL_MODEL_NAME = "qwen2.5-coder-1.5b-instruct"
LOCAL_MODEL_LABEL = "Qwen2.5-Coder-1.5B"


# Where an "openai" provider without a base URL sends its calls.
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"


class LLMSettings(BaseModel):
    """Where the LLM lives and which models serve each tier."""

    provider: LLMProvider = Field(
        default="local",
        description="local: the embedded Qwen2.5-Coder-1.5B server; openai: any OpenAI-compatible URL",
    )
    base_url: str | None = Field(default=None, description="OpenAI-compatible base URL (…/v1)")
    model: str = Field(default=LOCAL_MODEL_NAME, description="Working model: plan, extract, branch synthesis")
    synthesis_model: str | None = Field(default=None, description="Meta-synthesis model; None = working model")
    timeout_s: float = Field(default=300.0, gt=0, description="Timeout of one LLM call in seconds")
    max_retries: int = Field(default=2, ge=0, description="HTTP retries on 429/5xx/connection errors")
    structured_retries: int = Field(default=2, ge=0, description="Re-asks after invalid structured output")
    temperature: float = Field(default=0.2, ge=0.0, le=2.0)

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """Settings from explicit overrides first, then OPENAI_* / ARBOR_LLM_MODEL variables, then defaults.

        With no override and no OPENAI_API_KEY / OPENAI_BASE_URL, the embedded local model is used.
        """
        explicit = {k: v for k, v in overrides.items() if v is not None}
        env_base = os.environ.get("OPENAI_BASE_URL")
        env_key = os.environ.get("OPENAI_API_KEY")
        provider = explicit.get("provider") or ("openai" if (env_base or env_key) else "local")
        values: dict[str, Any] = {"provider": provider}
        if provider == "openai":
            if env_base:
                values["base_url"] = env_base
            values["model"] = os.environ.get("ARBOR_LLM_MODEL", "gpt-4o-mini")
        else:
            values["model"] = LOCAL_MODEL_NAME
        values.update(explicit)
        return cls(**values)

    @property
    def embedded(self) -> bool:
        """True when the embedded local model serves the calls (no other endpoint named)."""
        return self.provider == "local" and not self.base_url

    def endpoint_label(self) -> str:
        """A short description of where LLM calls go (credentials in the URL left out)."""
        return "embedded local model" if self.embedded else strip_url_secrets(self.base_url or OPENAI_DEFAULT_BASE_URL)

    @property
    def synthesis_tier_model(self) -> str:
        """The model used for meta-synthesis."""
        return self.synthesis_model if self.synthesis_model is not None else self.model

    def to_record(self) -> dict[str, Any]:
        """The settings as stored with a run: endpoint, models and timeouts, never a secret.

        LLMSettings holds no API key; credentials written into the base URL (user:password@,
        ?api_key=...) are removed as well.
        """
        data = self.model_dump(include=set(STORED_LLM_FIELDS))
        data["base_url"] = strip_url_secrets(self.base_url) if self.base_url else None
        return data


STORED_LLM_FIELDS = (
    "provider",
    "base_url",
    "model",
    "synthesis_model",
    "timeout_s",
    "max_retries",
    "structured_retries",
    "temperature",
)


def clean_service_url(value: str | None, name: str) -> str | None:
    """A service's base URL without trailing slash and without credentials, or None when blank.

    Refused: anything but http(s) with a host. Credentials (user:password@, ?token=...) are kept in
    this process's memory for connecting (`research_core.net.credentials`), never stored with a run
    or in the settings file.
    """
    if value is None or not value.strip():
        return None
    value = value.strip().rstrip("/")
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        raise ValueError(f"{name} is not a URL: {exc}") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{name} must be an http:// or https:// URL with a host")
    return remember(value)


def resolve_llm_settings(
    stored: Mapping[str, Any] | None,
    *,
    provider: str | None = None,
    base_url: str | None = None,
    model: str | None = None,
    synthesis_model: str | None = None,
    timeout_s: float | None = None,
) -> LLMSettings:
    """The LLM settings for continuing a run: explicit values, then the run's own, then the environment.

    `stored` is what `LLMSettings.to_record` saved when the run started (None for runs recorded
    before Arbor kept it). Naming another endpoint (a different provider, or any base URL)
    starts from the environment and defaults instead of the run's settings; a model or timeout
    alone overrides just that value of the run's settings.
    """
    explicit = {
        "provider": provider,
        "base_url": base_url,
        "model": model,
        "synthesis_model": synthesis_model,
        "timeout_s": timeout_s,
    }
    new_endpoint = base_url is not None or (provider is not None and stored and provider != stored.get("provider"))
    if stored and not new_endpoint:
        values = {k: v for k, v in stored.items() if k in STORED_LLM_FIELDS}
        values.update({k: v for k, v in explicit.items() if v is not None})
        try:
            return LLMSettings(**values)
        except ValidationError as exc:
            logger.warning("ignoring the run's stored LLM settings: %s", str(exc).splitlines()[0])
    return LLMSettings.from_env(**explicit)


class RunConfig(BaseModel):
    """Every limit of a research run. Stored with the run, so a resume uses the same values."""

    template: str = Field(default="general", description="Name of the template the limits came from")
    mode: Literal["auto", "flat", "hierarchical", "hypothesis"] = Field(
        default="auto",
        description="auto: classify the question; flat, hierarchical or hypothesis: force that mode",
    )
    min_sub_questions: int = Field(default=2, ge=1, description="Fewest sub-questions wanted")
    max_sub_questions: int = Field(default=5, ge=1, description="Most sub-questions kept")
    max_iterations: int = Field(default=20, ge=1, le=500, description="Total iteration budget of a run")
    sub_question_min_iterations: int = Field(default=2, ge=1, description="Least iterations a branch gets")
    sub_question_max_iterations: int = Field(default=5, ge=1, description="Most iterations a branch gets")
    max_total_cost_usd: float = Field(default=1.0, ge=0.0, description="Cost cap; synthesis is reserved")
    parallel: int = Field(default=2, ge=1, le=16, description="Branches researched at the same time")
    max_results_per_query: int = Field(default=5, ge=1, le=20, description="Search results kept per query")
    search_backends: list[str] = Field(default_factory=lambda: ["ddg", "library"])
    auto_approve: bool = Field(default=False, description="Skip the plan review gate")
    step_mode: bool = Field(default=False, description="Pause after each branch for inspection")
    findings_for_stop: int = Field(default=3, ge=1, description="Findings that end a branch (with min iterations)")
    confidence_for_stop: float = Field(default=0.7, ge=0.0, le=1.0, description="Average confidence that ends a branch")
    report_language: str | None = Field(default=None, description="Language of the report; None = the question's")
    # going deeper
    max_depth: int = Field(default=2, ge=1, le=4, description="Levels of sub-questions (2: one level of drill-down)")
    drill_down_priority: float = Field(
        default=0.7, ge=0.0, le=1.0, description="Branches at or above this priority may drill down"
    )
    drill_down_on: Literal["superficial", "adequate"] = Field(
        default="superficial",
        description="Drill into branches judged 'superficial' only, or 'adequate' ones too (more thorough, more calls)",
    )
    drill_down_iterations: int = Field(default=4, ge=1, description="Iterations shared by one drill-down's children")
    max_children: int = Field(default=3, ge=1, le=5, description="Most children one drill-down adds")
    adaptive_plan: bool = Field(default=True, description="Revise pending branches after each completed branch")
    max_revisions: int = Field(default=3, ge=0, description="Most plan revisions per run")
    max_total_sub_questions: int = Field(default=8, ge=1, description="Ceiling on branches, drill-downs included")
    coverage_check: bool = Field(default=True, description="Assess coverage and gaps before the final report")
    verify_citations: bool = Field(default=True, description="Check each cited claim against its source")
    sticky_backends: list[str] = Field(default_factory=list, description="Backends never dropped after failures")
    backend_max_failures: int = Field(default=2, ge=1, description="Failures before a backend is dropped for a branch")
    min_hypotheses: int = Field(default=2, ge=1, description="Fewest hypotheses in hypothesis mode")
    max_hypotheses: int = Field(default=5, ge=1, description="Most hypotheses in hypothesis mode, pivots included")
    # reading sources
    read_pages: bool = Field(
        default=True, description="Fetch each kept web result and give the model its best passages, not the snippet"
    )
    fetch_private_addresses: bool = Field(
        default=False,
        description="Allow fetching pages on private, loopback and link-local addresses (intranets, tests)",
    )
    read_deadline_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="Seconds a research step waits for the pages it reads; every page fetch ends by then",
    )
    searxng_url: str | None = Field(
        default=None, description="Base URL of the SearXNG instance; None = $ARBOR_SEARXNG_URL"
    )
    # left to the model: None until the run starts, then the model's value (`llm/model_settings.py`)
    sources_per_prompt: int | None = Field(
        default=None, ge=1, le=20, description="Sources shown to the model per extraction prompt; None = the model's"
    )
    snippet_chars: int | None = Field(
        default=None,
        ge=100,
        le=4000,
        description="Characters of each source shown to the model per extraction prompt; None = the model's",
    )
    engine_first_queries: bool | None = Field(
        default=None,
        description="A branch's first search queries come from its question's words, without a model call; "
        "None = the model's",
    )
    engine_judges_depth: bool | None = Field(
        default=None,
        description="A branch whose findings already cover every part of its question is judged deep "
        "without a model call; None = the model's",
    )
    engine_picks: bool | None = Field(
        default=None,
        description="After the model picks a step's findings, the engine adds the sentence closest in meaning "
        "to the branch's question from each source the model picked nothing from; None = the model's",
    )
    findings_per_part: int | None = Field(
        default=None,
        ge=0,
        le=10,
        description="A branch keeps researching until it has this many findings for each part of its question "
        "(for at most six iterations; 0: no such rule); None = the model's",
    )
    stop_on_confidence: bool | None = Field(
        default=None,
        description="A branch may end on the model's own confidence (`confidence_for_stop` over two findings) "
        "before it has `findings_for_stop` findings; None = the model's",
    )
    quoted_answers: bool | None = Field(
        default=None,
        description="Each question branch's answer is its findings' quotes, cited, and the report opens with "
        "the answers' most direct sentences, with no answer or overview written by the model; None = the model's",
    )
    citation_judge: Literal["model", "word_overlap"] | None = Field(
        default=None,
        description="Who checks each cited claim against its source: the model, or word overlap; None = the model's",
    )
    revise_while_pending: bool | None = Field(
        default=None,
        description="Ask the plan reviser while approved branches are still pending (it may only re-order "
        "them then); None = the model's",
    )

    @field_validator("searxng_url")
    @classmethod
    def _check_searxng_url(cls, value: str | None) -> str | None:
        return clean_service_url(value, "searxng_url")

    @model_validator(mode="after")
    def _check_ranges(self) -> RunConfig:
        if self.min_sub_questions > self.max_sub_questions:
            raise ValueError("min_sub_questions must not exceed max_sub_questions")
        if self.min_hypotheses > self.max_hypotheses:
            raise ValueError("min_hypotheses must not exceed max_hypotheses")
        if self.sub_question_min_iterations > self.sub_question_max_iterations:
            raise ValueError("sub_question_min_iterations must not exceed sub_question_max_iterations")
        return self


TEMPLATES: dict[str, dict[str, Any]] = {
    "quick_fact": {
        "mode": "flat",
        "max_iterations": 4,
        "sub_question_min_iterations": 1,
        "sub_question_max_iterations": 3,
    },
    "general": {},
    "comparison": {"mode": "hierarchical", "max_sub_questions": 5, "max_iterations": 20},
    "deep_dive": {
        "mode": "hierarchical",
        "max_iterations": 30,
        "sub_question_min_iterations": 3,
        "sub_question_max_iterations": 6,
        "max_sub_questions": 5,
        "drill_down_on": "adequate",
    },
    "academic": {
        "mode": "hierarchical",
        "max_iterations": 24,
        "sub_question_min_iterations": 3,
        "sub_question_max_iterations": 6,
        "confidence_for_stop": 0.8,
    },
}

TEMPLATE_DESCRIPTIONS: dict[str, str] = {
    "auto": "Let Arbor pick from the question's shape",
    "quick_fact": "One short, flat lookup",
    "general": "Balanced defaults",
    "comparison": "A vs B vs C: one branch per option plus cross-cutting aspects",
    "deep_dive": "More iterations per branch; drills into any branch that is not yet deep",
    "academic": "Stricter confidence before a branch stops",
}

# Patterns that mark a question as multi-part: a comparison (also in Japanese), three things to
# explain, positions or experts to weigh, causes and effects, pros and cons, advantages or trade-offs,
# or a list of three or more items.
_HIERARCHICAL_PATTERNS = [
    r"\bcompare\b",
    r"\b(vs\.?|versus)\b",
    r"\bexplain\b.+\band\b.+\band\b",
    r"\bevaluate\b.+\bposition",
    r"\bexpert [a-z]\b.+\bexpert [a-z]\b",
    r"\bcauses?\b.+\beffects?\b",
    r"\bpros and cons\b",
    r"\b(advantages|trade-?offs)\b",
    r",.+,.+\band\b",
    r"比較|違い",
]


def field_bounds(model: type[BaseModel], name: str) -> dict[str, float]:
    """The numeric bounds (gt, ge, lt, le) declared on a model's field: `field_bounds(RunConfig, "parallel")`
    is `{"ge": 1, "le": 16}`. Pages, the command line and the settings file read a setting's range here."""
    bounds: dict[str, float] = {}
    for item in model.model_fields[name].metadata:
        for key in ("gt", "ge", "lt", "le"):
            if isinstance(item, getattr(annotated_types, key.capitalize())):
                bounds[key] = getattr(item, key)
    return bounds


def input_range(model: type[BaseModel], name: str) -> dict[str, Any]:
    """`min_value` and `max_value` of a number input for a model's field, from its ge and le bounds."""
    bounds = field_bounds(model, name)
    return {"min_value": bounds.get("ge"), "max_value": bounds.get("le")}


def detect_template(question: str) -> str:
    """Pick a template name from the question's shape (used when the user leaves it on auto)."""
    q = question.lower()
    if re.search(r"\bcompare\b|\b(vs\.?|versus)\b|比較", q):
        return "comparison"
    if any(re.search(p, q) for p in _HIERARCHICAL_PATTERNS):
        return "general"
    if len(q.split()) <= 8 and re.match(r"^(what|who|when|where|which) (is|are|was|were)\b", q):
        return "quick_fact"
    return "general"


def build_run_config(template: str | None = None, question: str | None = None, **overrides: Any) -> RunConfig:
    """Start from a template (or the one detected from the question) and apply explicit overrides.

    Overrides equal to None are ignored; 0 and False are real values and are kept.
    """
    name = template if template not in (None, "auto") else (detect_template(question or "") if question else "general")
    if name not in TEMPLATES:
        raise ValueError(f"unknown template {name!r}; choose one of: {', '.join(TEMPLATES)}")
    values: dict[str, Any] = {"template": name, **TEMPLATES[name]}
    values.update({k: v for k, v in overrides.items() if v is not None})
    return RunConfig(**values)


def language_instruction(config: RunConfig) -> str:
    """How prompts name the output language."""
    if config.report_language:
        return config.report_language
    return "the same language as the question"
