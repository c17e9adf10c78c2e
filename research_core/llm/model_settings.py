"""The settings a run leaves to its model: the `RunConfig` fields that are None until the run starts,
and the values each kind of model gives them then (the Runner fills them in and stores them with the run).
"""

from __future__ import annotations

from typing import Any

from research_core.configuration import RunConfig

# The settings a run leaves to its model (None), as each kind of model fills them when the run starts. The
# embedded model reads prompts at roughly 35-75 tokens/s on 2 cores and writes about 26 tokens/s, so it is
# shown fewer, shorter sources, and spared each call whose answer the engine can give itself. A source's
# window is 350 characters. 450 kept more of each passage's key terms (bench.retrieval: aspects in
# windows 58 -> 61 of 66 and 28 -> 30 of 35) but, measured with the embedded model, named no more of
# each side's mechanisms and made the median multi-part run about 30 s slower (bench/README, round BB).
# The embedded model states 0.7-0.9 confidence for whatever it found first, so its branches do not end on
# that confidence: 12 of round MM's 35 hierarchical branches ended on two findings (bench/README, round NN).
HOSTED_MODEL_SETTINGS: dict[str, Any] = {
    "sources_per_prompt": 8,
    "snippet_chars": 600,
    "engine_first_queries": False,
    "engine_judges_depth": False,
    "engine_picks": False,
    "quoted_answers": False,
    "findings_per_part": 0,
    "stop_on_confidence": True,
    "citation_judge": "model",
    "revise_while_pending": True,
}
EMBEDDED_MODEL_SETTINGS: dict[str, Any] = {
    "sources_per_prompt": 5,
    "snippet_chars": 350,
    "engine_first_queries": True,
    "engine_judges_depth": True,
    "engine_picks": True,
    "quoted_answers": True,
    "findings_per_part": 2,
    "stop_on_confidence": False,
    "citation_judge": "word_overlap",
    "revise_while_pending": False,
}


def with_model_settings(config: RunConfig, embedded: bool) -> RunConfig:
    """`config` with each setting left to the model (None) filled in: the embedded model's values when
    `embedded` (the run's provider is "local"), a hosted model's otherwise. Values already set are kept."""
    defaults = EMBEDDED_MODEL_SETTINGS if embedded else HOSTED_MODEL_SETTINGS
    missing = {name: value for name, value in defaults.items() if getattr(config, name) is None}
    return config.model_copy(update=missing) if missing else config
