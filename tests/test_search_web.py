"""WebSearch over recorded ddgs results (tests/fixtures/ddgs/), and the real ddgs client offline."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from ddgs import DDGS
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from research_core.schemas import stable_id
from research_core.search.base import MAX_RESULTS_PER_QUERY, MAX_SNIPPET_CHARS, SearchBackend, SearchError
from research_core.search.library import DocumentLibrary
from research_core.search.registry import build_backends, check_backend, known_backends
from research_core.search.web import WebSearch, classify_error

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ddgs"


def recorded(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


class RecordedClient:
    """Stands in for ddgs.DDGS: answers from a script of result lists and exceptions, one per call."""

    def __init__(self, *script: list[dict[str, Any]] | BaseException):
        self.script = list(script)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.timeouts: list[float] = []

    def factory(self, timeout: float) -> RecordedClient:
        self.timeouts.append(timeout)
        return self

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append((query, kwargs))
        step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if isinstance(step, BaseException):
            raise step
        return step


def web(client: RecordedClient, **kwargs: Any) -> tuple[WebSearch, list[float]]:
    sleeps: list[float] = []
    return WebSearch(client_factory=client.factory, sleep=sleeps.append, **kwargs), sleeps


def dns_error() -> DDGSException:
    inner = DDGSException(
        "DNSError: DNSError('error sending request for url (https://html.duckduckgo.com/html/) > error resolving "
        'DNS > DNS error: no records found for Query { name: Name("html.duckduckgo.com."), query_type: A }\')'
    )
    return DDGSException(inner)


def test_maps_recorded_results_to_sources() -> None:
    client = RecordedClient(recorded("python_asyncio"))
    backend, _ = web(client)
    sources = backend.search("python asyncio", 10)

    assert isinstance(backend, SearchBackend) and backend.name == "ddg"
    first = sources[0]
    assert first.url == "https://docs.python.org/3/library/asyncio.html"
    assert first.title == "asyncio — Asynchronous I/O — Python 3.12.4 documentation"
    assert first.snippet.startswith("asyncio is a library to write concurrent code")
    assert first.backend == "ddg" and first.id == stable_id(first.url) and first.sub_question_id is None
    assert [s.relevance for s in sources] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]
    # whitespace is collapsed; a missing title falls back to the URL
    depth = next(s for s in sources if "in-depth" in s.url)
    assert depth.title == "asyncio in depth"
    assert (
        depth.snippet
        == "An event loop runs tasks and callbacks, performs network IO operations, and runs subprocesses."
    )
    pep = next(s for s in sources if "pep-0492" in s.url)
    assert pep.title == "https://peps.python.org/pep-0492/"
    # the client was asked once, with the capped count
    assert client.calls == [("python asyncio", {"max_results": 10, "backend": "auto", "region": "us-en"})]
    assert client.timeouts == [10.0]


def test_keeps_only_http_urls_and_drops_duplicates() -> None:
    backend, _ = web(RecordedClient(recorded("python_asyncio")))
    urls = [s.url for s in backend.search("asyncio", 20)]

    assert urls == [
        "https://docs.python.org/3/library/asyncio.html",
        "https://realpython.com/async-io-python/",
        "https://docs.python.org/3/library/asyncio-task.html",
        "http://stackoverflow.com/questions/49005651/how-does-asyncio-actually-work",
        "https://peps.python.org/pep-0492/",
        "HTTPS://Example.COM/asyncio-in-depth",
    ]
    assert all(not u.startswith(("ftp:", "javascript:", "/")) for u in urls)


@pytest.mark.parametrize(
    ("asked", "expected"),
    [(5, 5), (MAX_RESULTS_PER_QUERY, MAX_RESULTS_PER_QUERY), (100, MAX_RESULTS_PER_QUERY), (1, 1)],
)
def test_caps_the_number_of_results(asked: int, expected: int) -> None:
    client = RecordedClient(recorded("climate_change_25"))
    backend, _ = web(client)
    sources = backend.search("climate change", asked)

    assert len(sources) == expected
    assert client.calls[0][1]["max_results"] == min(asked, MAX_RESULTS_PER_QUERY)
    relevances = [s.relevance for s in sources]
    assert relevances == sorted(relevances, reverse=True)
    assert min(relevances) >= 0.1
    if expected == MAX_RESULTS_PER_QUERY:
        assert relevances[9:] == [0.1] * (MAX_RESULTS_PER_QUERY - 9)


def test_clips_huge_snippets_and_titles() -> None:
    huge = [{"title": "T" * 5000, "href": "https://example.org/huge", "body": "word " * 10_000}]
    sources = web(RecordedClient(huge))[0].search("huge", 3)

    assert len(sources[0].snippet) <= MAX_SNIPPET_CHARS
    assert len(sources[0].title) <= 300


def test_empty_query_or_zero_results_asks_nothing() -> None:
    client = RecordedClient(recorded("python_asyncio"))
    backend, _ = web(client)

    assert backend.search("   ", 10) == []
    assert backend.search("asyncio", 0) == []
    assert client.calls == []


@pytest.mark.parametrize(
    "error",
    [DDGSException("No results found."), DDGSException(DDGSException("No results found."))],
)
def test_no_results_is_an_empty_list(error: Exception) -> None:
    assert web(RecordedClient(error))[0].search("qwxzzy plorf", 10) == []


def test_rate_limit_backs_off_then_succeeds() -> None:
    client = RecordedClient(
        RatelimitException("https://html.duckduckgo.com/html 202 Ratelimit"),
        RatelimitException("https://html.duckduckgo.com/html 202 Ratelimit"),
        recorded("python_asyncio"),
    )
    backend, sleeps = web(client, max_retries=2, backoff_s=2.0)
    sources = backend.search("python asyncio", 5)

    assert len(sources) == 5
    assert len(client.calls) == 3
    assert sleeps == [2.0, 4.0]


def test_rate_limit_exhaustion_is_a_retryable_search_error() -> None:
    client = RecordedClient(RatelimitException("202 Ratelimit"))
    backend, sleeps = web(client, max_retries=2, backoff_s=1.5)

    with pytest.raises(SearchError) as caught:
        backend.search("python asyncio", 5)

    error = caught.value
    assert error.retryable and not error.unreachable and error.backend == "ddg"
    assert "rate-limiting" in error.user_message and "library backend" in error.user_message
    assert len(client.calls) == 3
    assert sleeps == [1.5, 3.0]


def test_rate_limit_reported_in_the_message_text_is_retried_too() -> None:
    client = RecordedClient(DDGSException("HTTP 429 Too Many Requests"), recorded("python_asyncio"))
    backend, sleeps = web(client, backoff_s=0.5)

    assert len(backend.search("asyncio", 3)) == 3
    assert sleeps == [0.5]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (dns_error(), "DNS lookup failed"),
        (
            DDGSException(
                "ConnectError: ConnectError('error sending request for url (https://search.yahoo.com/search?p=x) "
                "> Connection refused (os error 111)')"
            ),
            "connection refused",
        ),
        (ConnectionError("[Errno 101] Network is unreachable"), "network is unreachable"),
        (OSError(101, "Network is unreachable"), "network is unreachable"),
    ],
)
def test_network_failures_are_unreachable_with_a_helpful_message(error: Exception, reason: str) -> None:
    client = RecordedClient(error)
    backend, sleeps = web(client)

    with pytest.raises(SearchError) as caught:
        backend.search("python asyncio", 5)

    message = caught.value.user_message
    assert caught.value.unreachable and not caught.value.retryable
    assert message.startswith("Web search is unreachable (no network?)")
    assert reason in message
    assert "Add documents to the local library or check your connection." in message
    assert "http" not in message  # URLs of the failed requests are left out
    assert len(client.calls) == 1 and sleeps == []  # unreachable is not retried


def test_query_words_in_a_failed_url_do_not_fake_a_network_error() -> None:
    error = DDGSException("HTTPError: 500 Internal Server Error for url (https://x.example/?q=timeout+rate+limit)")
    assert classify_error(error) == "other"
    with pytest.raises(SearchError) as caught:
        web(RecordedClient(error))[0].search("timeout rate limit", 5)
    assert not caught.value.unreachable and caught.value.retryable
    assert caught.value.user_message.startswith("Web search failed:")


@pytest.mark.parametrize("error", [ValueError("bad html"), KeyError("href"), RuntimeError("engine crashed")])
def test_unexpected_client_errors_become_search_errors(error: Exception) -> None:
    with pytest.raises(SearchError) as caught:
        web(RecordedClient(error))[0].search("asyncio", 5)
    assert caught.value.backend == "ddg"


def test_a_malformed_answer_becomes_a_search_error() -> None:
    client = RecordedClient({"results": []})  # type: ignore[arg-type]
    with pytest.raises(SearchError):
        web(client)[0].search("asyncio", 5)
    rows = [None, "x", {"title": "no href"}, {"href": "https://ok.example/", "title": "ok"}]
    assert [s.url for s in web(RecordedClient(rows))[0].search("asyncio", 5)] == ["https://ok.example/"]


def test_a_hung_client_is_abandoned_after_the_deadline() -> None:
    release = threading.Event()

    class HungClient:
        def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
            release.wait(30)
            return []

    backend = WebSearch(timeout_s=0.05, max_retries=0, client_factory=lambda timeout: HungClient())
    try:
        with pytest.raises(SearchError) as caught:
            backend.search("asyncio", 5)
    finally:
        release.set()
    # a slow answer fails this query only: web search is not switched off for the run
    assert not caught.value.unreachable and caught.value.retryable
    assert "no answer in time" in caught.value.user_message


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_real_ddgs_client_offline_ends_in_unreachable() -> None:
    """The real ddgs client, pointed at a proxy port nothing listens on: no traffic leaves the machine."""
    proxy = f"http://127.0.0.1:{closed_port()}"
    backend = WebSearch(timeout_s=2, max_retries=0, client_factory=lambda timeout: DDGS(proxy=proxy, timeout=timeout))

    with pytest.raises(SearchError) as caught:
        backend.search("python asyncio tutorial", 5)

    assert caught.value.unreachable
    assert caught.value.user_message.startswith("Web search is unreachable (no network?)")


# ---- registry -------------------------------------------------------------------------


def test_build_backends_by_name(tmp_path: Path) -> None:
    backends = build_backends(["ddg", "library", "web", " Library "], tmp_path / "arbor.db")

    assert [b.name for b in backends] == ["ddg", "library"]
    assert isinstance(backends[0], WebSearch) and isinstance(backends[1], DocumentLibrary)
    assert build_backends([], tmp_path / "arbor.db") == []
    assert [b.name for b in build_backends(["web"], tmp_path / "arbor.db")] == ["ddg"]


def test_build_backends_rejects_unknown_names(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="known backends: ddg, library, searxng, web"):
        build_backends(["ddg", "google"], tmp_path / "arbor.db")
    assert known_backends() == ["ddg", "library", "searxng", "web"]


def test_check_backend_web() -> None:
    ok, message = check_backend(web(RecordedClient(recorded("python_asyncio")))[0])
    assert ok and message.startswith("reachable")

    offline = RecordedClient(dns_error())
    ok, message = check_backend(WebSearch(timeout_s=30, client_factory=offline.factory))
    assert not ok and message.startswith("unreachable: Web search is unreachable")
    assert offline.timeouts == [5.0]  # the check shortens the timeout

    ok, message = check_backend(web(RecordedClient(RatelimitException("202 Ratelimit")))[0])
    assert not ok and "rate-limiting" in message


def test_a_timeout_is_retried_once_and_fails_only_that_query() -> None:
    client = RecordedClient(TimeoutException("https://html.duckduckgo.com/html/ timed out"))
    backend, _ = web(client)
    with pytest.raises(SearchError) as caught:
        backend.search("python asyncio", 5)
    assert not caught.value.unreachable and caught.value.retryable  # web search stays on for the run
    assert "no answer in time" in caught.value.user_message
    assert len(client.calls) == 2  # one retry
