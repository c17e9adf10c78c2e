"""The embedded Qwen2.5-Coder-1.5B model for real: a decomposition through its llama.cpp server.

Slow (the model loads in seconds but writes about 26 tokens/s on 2 cores); marked `real_model`.
"""

from __future__ import annotations

import pytest

from research_core.configuration import LLMSettings, build_run_config
from research_core.runner import Runner

pytestmark = [pytest.mark.real_model, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def local_runner(tmp_path_factory):
    progress: list[str] = []
    runner = Runner(
        tmp_path_factory.mktemp("real") / "arbor.db",
        llm_settings=LLMSettings(provider="local", timeout_s=300),
        progress=progress.append,
    )
    runner.progress_messages = progress  # type: ignore[attr-defined]
    yield runner
    from research_core.local_model import stop_shared_server

    stop_shared_server()


def test_real_decomposition_through_the_embedded_server(local_runner):
    question = "Compare React, Vue, and Angular for building web applications"
    plan, _warnings = local_runner.propose_plan(question, build_run_config("comparison", question))
    # the first start says what it does instead of hanging silently
    assert any("Loading the local model" in m for m in local_runner.progress_messages)
    assert 1 <= len(plan.sub_questions) <= 5
    for sq in plan.sub_questions:
        assert len(sq.question_text) > 8
        assert 0.0 <= sq.priority <= 1.0
    assert [sq.id for sq in plan.sub_questions] == [f"sq_{i:03d}" for i in range(1, len(plan.sub_questions) + 1)]
    text = " ".join(sq.question_text.lower() for sq in plan.sub_questions)
    assert sum(name in text for name in ("react", "vue", "angular")) >= 2, text
    assert local_runner.llm.is_local and local_runner.llm.price("work") == (0.0, 0.0)
