"""SearxngSearch: web results from a SearXNG instance through its JSON API.

SearXNG answers `GET {base}/search?q=...&format=json` with `{"results": [{"url", "title",
"content", "engine", ...}], ...}` when the instance enables the JSON format (settings.yml:
`search: formats: [html, json]`); otherwise it answers 403. Errors map like the web backend's:
a refused connection or a failed DNS lookup means the instance is unreachable (the run disables
the backend); a timeout is retried once and then fails that query only (`SearchTimeoutError`);
HTTP 429 (SearXNG's limiter) is retried with exponential backoff, then a retryable SearchError;
a 5xx or an answer that is not SearXNG's JSON is a retryable SearchError.

Each attempt has one deadline (`deadline_s`), checked at every read of the answer, so an instance
that trickles its answer fails like one that hangs; the answer is at most `MAX_ANSWER_BYTES`,
decoded or not (`research_core.net.transfer`). Credentials in the URL (user:password@, ?token=)
are sent to the instance and left out of every message.

The instance's URL is user-chosen, usually on the user's own machine or network, so it is not
subject to the page fetcher's private-address rule. Identical queries within a run come from a
cache (the backend object lives for one run).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from research_core.net.transfer import ACCEPT_DECODED, TransferError, read_body, size_label, timeout_until
from research_core.schemas import Source
from research_core.search.base import MAX_RESULTS_PER_QUERY, QueryCache, SearchError, clip_source
from research_core.search.web import SearchTimeoutError, is_web_url, rank_relevance
from research_core.text.sanitize import strip_url_secrets

logger = logging.getLogger(__name__)

NAME = "searxng"
ENV_URL = "ARBOR_SEARXNG_URL"
NO_URL_MESSAGE = (
    "SearXNG has no URL: set it in Settings, with --searxng-url URL, or in the environment as ARBOR_SEARXNG_URL."
)
UNREACHABLE_MESSAGE = "SearXNG at {url} is unreachable ({detail}). Start it or check the URL in Settings."
RATE_LIMIT_MESSAGE = "SearXNG is rate-limiting requests (HTTP 429); wait a minute or relax its limiter."
FORBIDDEN_MESSAGE = (
    "SearXNG at {url} refused the JSON API (HTTP 403); enable it in its settings.yml: search: formats: [html, json]."
)
TIMEOUT_MESSAGE = "SearXNG got no answer in time for a query ({attempts}); it stays on for the next queries."
MALFORMED_MESSAGE = "SearXNG answered with something other than its search JSON ({detail})."
TOO_BIG_MESSAGE = "SearXNG's answer was larger than {cap}; check the instance at {url}."
BROKEN_MESSAGE = "SearXNG's answer broke off ({detail})."
MAX_ANSWER_BYTES = 2 * 1024 * 1024
TIMEOUT_RETRIES = 1
USER_AGENT = "Mozilla/5.0 (compatible; ArborResearch/1.0)"


class SearxngSearch:
    """Search through a SearXNG instance, as a SearchBackend named "searxng".

    Only `SearchError` leaves `search`. `transport` (an httpx transport) and `sleep` are for tests.
    """

    name = NAME

    def __init__(
        self,
        base_url: str | None,
        timeout_s: float = 10,
        max_retries: int = 2,
        backoff_s: float = 2.0,
        *,
        categories: str = "general",
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        """Configure the backend; `base_url` is the instance's root, e.g. http://localhost:8888."""
        self.base_url = (base_url or "").strip().rstrip("/") or None
        self.shown_url = strip_url_secrets(self.base_url) if self.base_url else None
        self.timeout_s = float(timeout_s)
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = max(0.0, float(backoff_s))
        self.categories = categories
        self.transport = transport
        self.cache = QueryCache()
        self._sleep = sleep

    @property
    def deadline_s(self) -> float:
        """Wall-clock bound of one attempt, however the instance sends its answer."""
        return 2 * self.timeout_s + 1

    def search(self, query: str, max_results: int) -> list[Source]:
        """Return at most `max_results` sources, best first; raise SearchError on failure."""
        limit = min(int(max_results), MAX_RESULTS_PER_QUERY)
        query = " ".join(query.split())
        if limit <= 0 or not query:
            return []
        if self.base_url is None:
            raise SearchError(self.name, NO_URL_MESSAGE, unreachable=True)
        cached = self.cache.get(query, limit)
        if cached is not None:
            return cached
        sources = self._to_sources(self._results(query), limit)
        self.cache.put(query, limit, sources)
        return sources

    def _results(self, query: str) -> list[Any]:
        """The `results` list of SearXNG's answer, with retries on rate limits and timeouts."""
        rate_limited = 0
        timeouts = 0
        while True:
            try:
                status, body = self._get(query)
            except (httpx.TimeoutException, TimeoutError) as exc:
                timeouts += 1
                if timeouts <= min(self.max_retries, TIMEOUT_RETRIES):
                    logger.warning("SearXNG timed out for %r; retrying in %.1fs", query, self.backoff_s)
                    self._sleep(self.backoff_s)
                    continue
                attempts = f"{timeouts} attempt{'s' if timeouts != 1 else ''}"
                raise SearchTimeoutError(self.name, TIMEOUT_MESSAGE.format(attempts=attempts)) from exc
            except (httpx.TransportError, OSError) as exc:
                detail = "connection refused" if "refused" in str(exc).lower() else type(exc).__name__
                if isinstance(exc, httpx.ConnectError) and "name" in str(exc).lower():
                    detail = "DNS lookup failed"
                raise SearchError(
                    self.name, UNREACHABLE_MESSAGE.format(url=self.shown_url, detail=detail), unreachable=True
                ) from exc
            if status == 429:
                if rate_limited < self.max_retries:
                    delay = self.backoff_s * (2**rate_limited)
                    rate_limited += 1
                    logger.warning("SearXNG rate-limited; retry %d/%d in %.1fs", rate_limited, self.max_retries, delay)
                    self._sleep(delay)
                    continue
                raise SearchError(self.name, RATE_LIMIT_MESSAGE, retryable=True)
            return self._parse(status, body)

    def _get(self, query: str) -> tuple[int, bytes]:
        """(status, body) of one request, within `deadline_s` and `MAX_ANSWER_BYTES`.

        TimeoutError when the deadline passes (however slowly the bytes come); SearchError when the
        answer is too big, broken off or in an encoding not decoded here.
        """
        deadline = time.monotonic() + self.deadline_s
        base = httpx.URL(self.base_url or "")
        url = base.copy_with(path=base.path.rstrip("/") + "/search")
        params = {"q": query, "format": "json", "categories": self.categories, "pageno": "1"}
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
            "Accept-Language": "en;q=0.9,*;q=0.5",
            "Accept-Encoding": ACCEPT_DECODED,
        }
        timeout = timeout_until(deadline, self.timeout_s, self.timeout_s)
        with (
            httpx.Client(transport=self.transport, timeout=timeout, trust_env=False) as client,
            client.stream("GET", url.copy_merge_params(params), headers=headers) as response,
        ):
            try:
                return response.status_code, read_body(response, MAX_ANSWER_BYTES, deadline)
            except TransferError as exc:
                raise self._transfer_error(exc) from None

    def _transfer_error(self, exc: TransferError) -> Exception:
        if exc.reason in ("timeout", "stopped"):
            return TimeoutError(str(exc))
        if exc.reason == "too_big":
            message = TOO_BIG_MESSAGE.format(cap=size_label(MAX_ANSWER_BYTES), url=self.shown_url)
            return SearchError(self.name, message, retryable=True)
        detail = "an encoding Arbor does not decode" if exc.reason == "encoding" else str(exc)
        return SearchError(self.name, BROKEN_MESSAGE.format(detail=detail), retryable=True)

    def _parse(self, status: int, body: bytes) -> list[Any]:
        if status == 403:
            raise SearchError(self.name, FORBIDDEN_MESSAGE.format(url=self.shown_url))
        if status >= 400:
            raise SearchError(self.name, f"SearXNG answered HTTP {status}.", retryable=status >= 500)
        try:
            data = json.loads(body)
        except ValueError:
            raise SearchError(self.name, MALFORMED_MESSAGE.format(detail="not JSON"), retryable=True) from None
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, list):
            raise SearchError(self.name, MALFORMED_MESSAGE.format(detail="no results list"), retryable=True)
        if not results and isinstance(data, dict) and data.get("unresponsive_engines"):
            logger.info("SearXNG: no results; unresponsive engines: %r", data["unresponsive_engines"])
        return results

    def _to_sources(self, raw: list[Any], limit: int) -> list[Source]:
        """Map SearXNG results to Sources: http(s) only, no duplicates, relevance by rank."""
        sources: list[Source] = []
        seen: set[str] = set()
        for item in raw:
            if not isinstance(item, dict):
                continue
            url = str(item.get("url") or "").strip()
            if not is_web_url(url) or url in seen:
                continue
            seen.add(url)
            title = " ".join(str(item.get("title") or "").split()) or url
            snippet = " ".join(str(item.get("content") or "").split())
            sources.append(clip_source(Source.make(url, title, snippet, rank_relevance(len(sources)), self.name)))
            if len(sources) >= limit:
                break
        return sources
