"""The settings a run leaves to its model: filled in from the model when the run starts, stored with the run
and its export, and the only thing the engine reads (`configuration.with_model_settings`)."""

from __future__ import annotations

import json

from research_core.configuration import RunConfig, build_run_config
from research_core.llm.model_settings import EMBEDDED_MODEL_SETTINGS, HOSTED_MODEL_SETTINGS, with_model_settings
from research_core.output.export import render_export
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "What is SQLite's write-ahead log?"


def test_every_setting_left_to_the_model_has_both_defaults_within_its_bounds() -> None:
    assert set(EMBEDDED_MODEL_SETTINGS) == set(HOSTED_MODEL_SETTINGS)
    for name in HOSTED_MODEL_SETTINGS:
        assert RunConfig.model_fields[name].default is None, name
    # both sets are valid settings (bounds and choices included)
    assert RunConfig(**EMBEDDED_MODEL_SETTINGS) and RunConfig(**HOSTED_MODEL_SETTINGS)
    assert with_model_settings(RunConfig(), embedded=True).model_dump(include=set(EMBEDDED_MODEL_SETTINGS)) == (
        EMBEDDED_MODEL_SETTINGS
    )
    assert with_model_settings(RunConfig(), embedded=False).model_dump(include=set(HOSTED_MODEL_SETTINGS)) == (
        HOSTED_MODEL_SETTINGS
    )


def test_a_value_the_user_chose_is_kept_whatever_the_model() -> None:
    chosen = build_run_config("general", sources_per_prompt=3, citation_judge="model")
    for embedded in (True, False):
        filled = with_model_settings(chosen, embedded=embedded)
        assert filled.sources_per_prompt == 3 and filled.citation_judge == "model"


def test_a_run_stores_its_models_settings_and_its_export_shows_them(tmp_path) -> None:
    with serve(ScriptedLLM()) as (url, _):
        local = make_runner(tmp_path / "local", url, provider="local")
        hosted = make_runner(tmp_path / "hosted", url)
        local_id = local.create_run(QUESTION, config())
        hosted_id = hosted.create_run(QUESTION, config(snippet_chars=900))
        snap = local.start(QUESTION, config(auto_approve=True, mode="flat", max_iterations=2))
    stored = local.store.get(local_id).config
    assert {k: stored[k] for k in EMBEDDED_MODEL_SETTINGS} == EMBEDDED_MODEL_SETTINGS
    stored = hosted.store.get(hosted_id).config
    assert {k: stored[k] for k in HOSTED_MODEL_SETTINGS} == {**HOSTED_MODEL_SETTINGS, "snippet_chars": 900}
    assert snap.status == "completed", snap.error
    exported = json.loads(render_export(local.result(snap.run_id), "json"))
    assert exported["config"]["citation_judge"] == "word_overlap" and exported["config"]["sources_per_prompt"] == 5


def iterations(snap) -> int:
    return sum(b.iteration_count for b in snap.branches)


def test_the_engine_follows_the_runs_settings_not_the_model(tmp_path) -> None:
    """The embedded model's shortcuts, set on a hosted model's run, are taken; set off on an embedded
    model's run, they are not."""
    cfg = {"auto_approve": True, "mode": "flat", "max_iterations": 3}
    with serve(ScriptedLLM()) as (url, script):
        hosted = make_runner(tmp_path / "hosted", url)
        snap = hosted.start(QUESTION, config(**cfg, **EMBEDDED_MODEL_SETTINGS))
        assert snap.status == "completed", snap.error
        assert snap.config["citation_judge"] == "word_overlap"
        # no citation judge, and the first step searched without asking for queries
        assert script.count("verify_citations") == 0 and script.count("plan_queries") == iterations(snap) - 1
        calls = (script.count("verify_citations"), script.count("plan_queries"))
        local = make_runner(tmp_path / "local", url, provider="local")
        snap = local.start(QUESTION, config(**cfg, **HOSTED_MODEL_SETTINGS))
        assert snap.status == "completed", snap.error
        assert script.count("verify_citations") > calls[0]
        assert script.count("plan_queries") - calls[1] == iterations(snap)  # every step asks
