"""What the LLM client puts on the wire: JSON mode for structured calls, a schema only for llama.cpp."""

from __future__ import annotations

from research_core.configuration import LLMSettings
from research_core.llm.client import LLMClient
from research_core.schemas import QueryPlanOutput
from tests.fakes.llm_server import ScriptedLLM, serve


def _client(url: str, provider: str) -> LLMClient:
    return LLMClient(LLMSettings(provider=provider, base_url=url, model="gpt-4o-mini", max_retries=0))


def test_structured_calls_ask_for_json_mode_and_free_text_calls_do_not():
    with serve(ScriptedLLM()) as (url, scripted):
        llm = _client(url, "openai")
        plan, costs = llm.structured(
            "plan_queries", QueryPlanOutput, "system", "<sub_question>Q</sub_question>", node="t"
        )
        text, _ = llm.complete("synthesize_branch", "system", "user", node="t")
    assert plan.queries and len(costs) == 1 and text
    (_, structured_body), (_, free_body) = scripted.calls
    # a hosted endpoint gets plain JSON mode: OpenAI rejects unknown keys inside response_format
    assert structured_body["response_format"] == {"type": "json_object"}
    assert "response_format" not in free_body


def test_the_embedded_llama_cpp_server_also_gets_the_schema_to_constrain_its_output():
    with serve(ScriptedLLM()) as (url, scripted):
        _client(url, "local").structured(
            "plan_queries", QueryPlanOutput, "system", "<sub_question>Q</sub_question>", node="t"
        )
    fmt = scripted.calls[0][1]["response_format"]
    assert fmt["type"] == "json_object"
    assert set(fmt["schema"]["properties"]) == set(QueryPlanOutput.model_fields)
