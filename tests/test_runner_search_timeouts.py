"""A slow web search is a failed query, not a missing network: web search stays on for the run.

The web backend is the real WebSearch with a fake `ddgs` client (its `client_factory`), so its
retry, deadline and error classification run for real inside the engine.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from ddgs.exceptions import DDGSException, TimeoutException

from research_core.search.base import SearchError
from research_core.search.registry import check_backend
from research_core.search.web import SearchTimeoutError, WebSearch, classify_error
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(90)


def results(query: str, n: int) -> list[dict[str, Any]]:
    return [
        {"href": f"https://example.org/{abs(hash(query)) % 1000}/{i}", "title": f"{query} {i}", "body": query}
        for i in range(n)
    ]


class Client:
    """A stand-in for ddgs.DDGS that runs `behaviour(call_number, query, max_results)`."""

    def __init__(self, behaviour):
        self.behaviour = behaviour
        self.queries: list[str] = []
        self._lock = threading.Lock()

    def factory(self, timeout: float) -> Client:
        return self

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        with self._lock:
            self.queries.append(query)
            n = len(self.queries)
        return self.behaviour(n, query, kwargs.get("max_results", 5))


def web(client: Client, **kwargs: Any) -> tuple[WebSearch, list[float]]:
    sleeps: list[float] = []
    return WebSearch(client_factory=client.factory, sleep=sleeps.append, **kwargs), sleeps


def test_a_timeout_is_retried_once_and_a_late_answer_is_used() -> None:
    def slow_once(n, query, limit):
        if n == 1:
            raise TimeoutException("https://html.duckduckgo.com/html/ timed out")
        return results(query, limit)

    client = Client(slow_once)
    backend, sleeps = web(client, backoff_s=2.0)
    found = backend.search("vue reactivity", 3)
    assert len(found) == 3 and len(client.queries) == 2
    assert sleeps == [2.0]


def test_a_query_that_keeps_timing_out_fails_alone_and_is_not_unreachable() -> None:
    def always_slow(n, query, limit):
        raise DDGSException("TimeoutError: error sending request for url (https://lite.duckduckgo.com/): timed out")

    client = Client(always_slow)
    backend, _ = web(client)
    with pytest.raises(SearchTimeoutError) as caught:
        backend.search("vue reactivity", 3)
    assert caught.value.retryable and not caught.value.unreachable
    assert caught.value.user_message == (
        "Web search got no answer in time for a query (2 attempts); web search stays on for the next queries."
    )
    assert len(client.queries) == 2


def test_dns_and_refused_connections_still_mean_unreachable() -> None:
    dns = DDGSException("DNSError: error sending request for url (https://x/): dns error: failed to lookup address")
    refused = DDGSException("ConnectError: error sending request: Connection refused (os error 111): timed out")
    assert classify_error(dns) == classify_error(refused) == "unreachable"
    assert classify_error(TimeoutError("no answer within 21s")) == "timeout"
    client = Client(lambda n, q, limit: (_ for _ in ()).throw(dns))
    with pytest.raises(SearchError) as caught:
        web(client)[0].search("vue", 3)
    assert caught.value.unreachable and len(client.queries) == 1


def test_the_backend_check_calls_a_timeout_slow() -> None:
    client = Client(lambda n, q, limit: (_ for _ in ()).throw(TimeoutException("timed out")))
    ok, message = check_backend(web(client)[0])
    assert not ok and message.startswith("slow: no answer in time")


def test_one_slow_search_does_not_disable_web_search_for_the_run(tmp_path) -> None:
    def first_query_slow(n, query, limit):
        if n <= 2:  # the first query and its retry
            raise TimeoutException("https://html.duckduckgo.com/html/ timed out")
        return results(query, limit)

    client = Client(first_query_slow)
    backend, _ = web(client)
    with serve(ScriptedLLM()) as (url, _):
        runner = make_runner(tmp_path, url, backends=[backend, FixtureSearch()])
        snap = runner.start(
            QUESTION, config(auto_approve=True, mode="hierarchical", search_backends=["ddg", "fixture"], parallel=1)
        )
    assert snap.status == "completed", snap.error
    assert len(client.queries) > 2  # later queries still went to the web
    assert any(s.backend == "ddg" for s in snap.sources)
    assert not any("disabled for this run" in w for w in snap.warnings)
    assert any("no answer in time" in w and "stays on" in w for w in snap.warnings)
    first = snap.branches[0]
    assert first.backend_stats["ddg"]["errors"] == 1  # counted in the branch's diagnostics
    assert any("no answer in time" in e.message for e in snap.log if e.kind == "search_error")
