"""RunConfig, templates and LLM settings precedence."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research_core.configuration import LOCAL_MODEL_NAME, LLMSettings, build_run_config, detect_template
from research_core.planning.question_shape import multi_part_signals


def test_no_key_means_the_embedded_model(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    s = LLMSettings.from_env()
    assert s.provider == "local" and s.model == LOCAL_MODEL_NAME


def test_environment_fills_defaults_and_explicit_values_win(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    s = LLMSettings.from_env()
    assert (s.provider, s.base_url, s.model) == ("openai", "http://localhost:11434/v1", "gpt-4o-mini")
    s = LLMSettings.from_env(provider="local")
    assert s.provider == "local" and s.model == LOCAL_MODEL_NAME
    s = LLMSettings.from_env(base_url="http://vllm:8000/v1", model="qwen", synthesis_model="big")
    assert (s.base_url, s.model, s.synthesis_tier_model) == ("http://vllm:8000/v1", "qwen", "big")
    assert LLMSettings.from_env(model="m").synthesis_tier_model == "m"


def test_templates_and_overrides_keep_zero_and_false():
    cfg = build_run_config("deep_dive", max_total_cost_usd=0.0, adaptive_plan=False, parallel=None)
    assert cfg.template == "deep_dive" and cfg.max_iterations == 30
    assert cfg.max_total_cost_usd == 0.0 and cfg.adaptive_plan is False and cfg.parallel == 2
    assert build_run_config(None, "Compare A vs B").template == "comparison"
    with pytest.raises(ValueError, match="unknown template"):
        build_run_config("nope")
    with pytest.raises(ValidationError):
        build_run_config("general", min_sub_questions=4, max_sub_questions=2)


@pytest.mark.parametrize(
    ("question", "template", "complex_"),
    [
        ("What is quantum computing?", "quick_fact", False),
        ("Compare React, Vue, and Angular for building web applications", "comparison", True),
        ("Explain the causes, effects, and solutions to climate change", "general", True),
        (
            "How does machine learning work, what are its applications in healthcare, and what are the ethical "
            "concerns?",
            "general",
            True,
        ),
    ],
)
def test_auto_detection_on_the_seed_questions(question, template, complex_):
    assert detect_template(question) == template
    assert bool(multi_part_signals(question)) is complex_
