"""What the LLM client puts on the wire: JSON mode for structured calls, a schema only for llama.cpp."""

from __future__ import annotations

import pytest

from research_core.configuration import LLMSettings
from research_core.llm import LLMClient
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


def test_the_request_body_is_the_one_the_openai_sdk_would_send():
    """Arbor's lean transport must put on the wire exactly what ChatOpenAI's stock client sends."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langchain_openai import ChatOpenAI

    messages = [SystemMessage("system prompt"), HumanMessage("<sub_question>Q</sub_question>")]
    with serve(ScriptedLLM()) as (url, scripted):
        llm = _client(url, "openai")
        llm.structured("plan_queries", QueryPlanOutput, "system prompt", messages[1].content, node="t")
        stock = ChatOpenAI(model="gpt-4o-mini", base_url=url, api_key="sk-test", max_retries=0, temperature=0.2)
        stock.invoke(
            messages,
            extra_headers={"X-Arbor-Task": "plan_queries"},
            extra_body={"response_format": {"type": "json_object"}},
            max_tokens=1024,
        )
    (lean_task, lean_body), (stock_task, stock_body) = scripted.calls
    assert lean_task == stock_task == "plan_queries"  # the task header reaches the server
    assert lean_body == stock_body


def test_an_answer_that_is_not_json_is_a_clear_error_naming_the_endpoint():
    """A proxy or login page answering 200 with HTML is reported, not crashed on."""
    from research_core.llm import LLMError
    from tests.fakes.llm_server import Fault

    html = Fault(status=200, body="<html><body>Please sign in</body></html>", verbatim=True, content_type="text/html")
    with serve(ScriptedLLM(script={"synthesize_branch": html})) as (url, _), pytest.raises(LLMError) as failure:
        _client(url, "openai").complete("synthesize_branch", "system", "user", node="t")
    assert url in failure.value.user_message
    assert "not a chat completion" in failure.value.user_message
    assert len(failure.value.costs) == 1 and not failure.value.costs[0].ok
