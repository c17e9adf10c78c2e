"""SearxngSearch against the local web's SearXNG-format JSON, and its errors handled like the web backend's."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ddgs.exceptions import RatelimitException

from research_core.search.base import SearchBackend, SearchError
from research_core.search.registry import build_backends, check_backend, known_backends, parse_backend_names
from research_core.search.searxng import NO_URL_MESSAGE, SearxngSearch
from research_core.search.web import SearchTimeoutError, WebSearch
from tests.fakes.local_web import LocalWeb, Route, serve_local_web
from tests.test_search_web import RecordedClient, recorded


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web() as served:
        yield served


def searxng(url: str, **kwargs: Any) -> tuple[SearxngSearch, list[float]]:
    sleeps: list[float] = []
    return SearxngSearch(url, sleep=sleeps.append, **kwargs), sleeps


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_results_become_sources_ranked_by_bm25(web: LocalWeb) -> None:
    backend, _ = searxng(web.base_url)
    assert isinstance(backend, SearchBackend)
    sources = backend.search("write-ahead logging readers writers", 5)
    assert sources and sources[0].url == web.url("sqlite/wal.html")
    assert all(s.backend == "searxng" and s.url.startswith(web.base_url) for s in sources)
    assert [s.relevance for s in sources] == sorted((s.relevance for s in sources), reverse=True)
    assert sources[0].relevance == 1.0 and sources[0].title
    assert sources[0].snippet and len(sources[0].snippet) < 400  # a teaser, not the page
    assert backend.search("PostgreSQL", 2) and len(backend.search("database", 2)) == 2


def test_identical_queries_within_a_run_hit_the_cache(web: LocalWeb) -> None:
    backend, _ = searxng(web.base_url)
    first = backend.search("sqlite   WAL", 5)
    assert backend.search("SQLite WAL", 5) == first
    assert web.queries == ["sqlite WAL"] and backend.cache.hits == 1
    backend.search("sqlite WAL", 3)  # another result count is another question
    assert len(web.queries) == 2


def test_an_empty_query_asks_nothing(web: LocalWeb) -> None:
    backend, _ = searxng(web.base_url)
    assert backend.search("  ", 5) == [] and backend.search("wal", 0) == [] and web.queries == []


def test_rate_limit_backs_off_then_fails_retryable(web: LocalWeb) -> None:
    web.route("search", Route(status=429, body=b"Too Many Requests", content_type="text/plain"))
    backend, sleeps = searxng(web.base_url, max_retries=2, backoff_s=1.5)
    with pytest.raises(SearchError) as caught:
        backend.search("sqlite", 5)
    assert caught.value.retryable and not caught.value.unreachable
    assert "rate-limiting" in caught.value.user_message
    assert sleeps == [1.5, 3.0] and web.fetches("search") == 3


def test_rate_limit_then_success() -> None:
    answers = [
        httpx.Response(429),
        httpx.Response(200, json={"results": [{"url": "https://a.example/", "title": "A"}]}),
    ]
    backend, sleeps = searxng("http://searx.test", transport=httpx.MockTransport(lambda request: answers.pop(0)))
    assert [s.url for s in backend.search("q", 5)] == ["https://a.example/"] and sleeps == [2.0]


def test_unreachable_instance_disables_the_backend_for_the_run() -> None:
    backend, _ = searxng(f"http://127.0.0.1:{closed_port()}")
    with pytest.raises(SearchError) as caught:
        backend.search("sqlite", 5)
    assert caught.value.unreachable
    assert "is unreachable (connection refused)" in caught.value.user_message


def test_no_url_is_reported_as_unreachable_with_where_to_set_it() -> None:
    with pytest.raises(SearchError) as caught:
        SearxngSearch(None).search("sqlite", 5)
    assert caught.value.unreachable and caught.value.user_message == NO_URL_MESSAGE


@pytest.mark.parametrize(
    ("body", "detail"),
    [(b"<html>not json</html>", "not JSON"), (b'{"answers": []}', "no results list"), (b"[1, 2]", "no results list")],
)
def test_malformed_answers_are_retryable_search_errors(web: LocalWeb, body: bytes, detail: str) -> None:
    web.route("search", Route(body=body, content_type="application/json"))
    with pytest.raises(SearchError) as caught:
        searxng(web.base_url)[0].search("sqlite", 5)
    assert caught.value.retryable and not caught.value.unreachable and detail in caught.value.user_message


def test_a_disabled_json_api_says_how_to_enable_it(web: LocalWeb) -> None:
    web.route("search", Route(status=403, body=b"Forbidden", content_type="text/plain"))
    with pytest.raises(SearchError) as caught:
        searxng(web.base_url)[0].search("sqlite", 5)
    assert "formats: [html, json]" in caught.value.user_message and not caught.value.retryable


def test_a_server_error_is_retryable(web: LocalWeb) -> None:
    web.route("search", Route(status=502, body=b"bad gateway", content_type="text/plain"))
    with pytest.raises(SearchError) as caught:
        searxng(web.base_url)[0].search("sqlite", 5)
    assert caught.value.retryable and "HTTP 502" in caught.value.user_message


def test_a_timeout_is_retried_once_and_fails_only_that_query(web: LocalWeb) -> None:
    web.route("search", Route(body=b"{}", content_type="application/json", delay_s=1.0))
    backend, sleeps = searxng(web.base_url, timeout_s=0.2, backoff_s=0.1)
    with pytest.raises(SearchTimeoutError) as caught:
        backend.search("sqlite", 5)
    assert caught.value.retryable and not caught.value.unreachable
    assert web.fetches("search") == 2 and sleeps == [0.1]


def test_only_web_urls_once_each() -> None:
    rows = [
        {"url": "https://a.example/", "title": "A", "content": "first"},
        {"url": "https://a.example/", "title": "A again"},
        {"url": "javascript:alert(1)", "title": "bad"},
        {"url": "ftp://files.example/x", "title": "ftp"},
        "not a dict",
        {"url": "https://b.example/", "title": "", "content": "x" * 5000},
    ]
    body = json.dumps({"results": rows})
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text=body))
    sources = SearxngSearch("http://searx.test", transport=transport).search("q", 10)
    assert [s.url for s in sources] == ["https://a.example/", "https://b.example/"]
    assert sources[1].title == "https://b.example/" and len(sources[1].snippet) == 1500


def test_the_request_asks_for_json_and_sends_no_secrets() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"results": []})

    SearxngSearch("http://searx.test/base/", transport=httpx.MockTransport(answer)).search("sqlite wal", 5)
    (request,) = seen
    assert request.url.path == "/base/search"
    assert dict(request.url.params) == {"q": "sqlite wal", "format": "json", "categories": "general", "pageno": "1"}
    assert "authorization" not in request.headers and "cookie" not in request.headers


# ---- registry --------------------------------------------------------------------------------------


def test_registry_builds_searxng_from_the_setting_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "searxng" in known_backends() and parse_backend_names("searxng, ddg") == ["searxng", "ddg"]
    monkeypatch.setenv("ARBOR_SEARXNG_URL", "http://env.example:8888")
    (from_env,) = build_backends(["searxng"], tmp_path / "a.db")
    (explicit,) = build_backends(["searxng"], tmp_path / "a.db", searxng_url="http://set.example/")
    assert isinstance(from_env, SearxngSearch) and from_env.base_url == "http://env.example:8888"
    assert explicit.base_url == "http://set.example"  # an explicit URL wins over the environment
    monkeypatch.delenv("ARBOR_SEARXNG_URL")
    assert build_backends(["searxng"], tmp_path / "a.db")[0].base_url is None


def test_check_backend_searxng(web: LocalWeb) -> None:
    ok, message = check_backend(SearxngSearch(web.base_url))
    assert ok and message.startswith("reachable")
    ok, message = check_backend(SearxngSearch(f"http://127.0.0.1:{closed_port()}"))
    assert not ok and message.startswith("unreachable: SearXNG at")
    web.route("search", Route(status=429))
    ok, message = check_backend(SearxngSearch(web.base_url, backoff_s=5))
    assert not ok and message.startswith("busy:") and web.fetches("search") == 2  # no retry in a check


# ---- the ddgs backend's other engines, and its query cache ----------------------------------------


def test_ddgs_with_chosen_engines_tries_the_others_before_giving_up() -> None:
    client = RecordedClient(RatelimitException("202 Ratelimit"), recorded("python_asyncio"))
    sleeps: list[float] = []
    backend = WebSearch(client_factory=client.factory, sleep=sleeps.append, engines="duckduckgo")
    assert backend.search("python asyncio", 5)
    assert [kwargs["backend"] for _, kwargs in client.calls] == ["duckduckgo", "auto"]
    assert sleeps == []  # the other engines are tried at once, before any backoff


def test_ddgs_answers_identical_queries_from_its_cache() -> None:
    client = RecordedClient(recorded("python_asyncio"))
    backend = WebSearch(client_factory=client.factory)
    assert backend.search("python asyncio", 5) == backend.search(" Python  asyncio ", 5)
    assert len(client.calls) == 1


def test_the_local_web_serves_several_folders_under_prefixes(tmp_path: Path) -> None:
    for name, words in (("pg", "PostgreSQL vacuum reclaims storage"), ("lite", "SQLite vacuum rebuilds the file")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "vacuum.html").write_text(f"<html><title>{name}</title><body><p>{words}</p></body></html>")
    with serve_local_web(LocalWeb({"postgresql": tmp_path / "pg", "sqlite": tmp_path / "lite"})) as web:
        urls = [s.url for s in SearxngSearch(web.base_url).search("vacuum", 5)]
        assert sorted(urls) == [web.url("postgresql/vacuum.html"), web.url("sqlite/vacuum.html")]
        assert httpx.get(web.url("sqlite/vacuum.html"), trust_env=False).text.count("SQLite vacuum") == 1
        assert httpx.get(web.url("sqlite/../pg/vacuum.html"), trust_env=False).status_code == 404
