"""Shared fixtures: the scripted LLM server, fixture search and a runner on a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from research_core.configuration import LLMSettings, RunConfig, build_run_config
from research_core.runner import Runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FixtureSearch


@pytest.fixture
def scripted() -> Iterator[tuple[str, ScriptedLLM]]:
    with serve(ScriptedLLM()) as (url, script):
        yield url, script


def make_runner(tmp_path, url: str, backends=None, **settings) -> Runner:
    llm = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0, **settings)
    return Runner(tmp_path / "arbor.db", llm_settings=llm, api_key="sk-test", backends=backends or [FixtureSearch()])


@pytest.fixture
def runner(tmp_path, scripted) -> Runner:
    url, _ = scripted
    return make_runner(tmp_path, url)


def config(**overrides) -> RunConfig:
    values = {"search_backends": ["fixture"], "parallel": 2}
    values.update(overrides)
    return build_run_config("general", **values)
