"""WebSearch: web results from the `ddgs` metasearch package (formerly duckduckgo-search).

`ddgs` (9.x) queries several engines (DuckDuckGo, Bing, Brave, Wikipedia ...) and folds every
failure into a `DDGSException` whose message is the last engine's error, so errors are told
apart by their text: DNS and connection failures mean the network is unreachable, "No results
found." means an empty answer. Rate limits are retried with exponential backoff. A timeout is a
slow answer, not a missing network: it is retried once and then fails that one query only
(`SearchTimeoutError`), so the run keeps using web search.

With `engines="auto"` (the default) ddgs itself tries its engines in turn (Wikipedia and
Grokipedia first, then the others shuffled) until it has enough results. A backend configured
with an explicit engine list falls back to "auto", so to the other engines, before giving up.
Identical queries within a run come from a cache (the backend object lives for one run).
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from ddgs.exceptions import RatelimitException, TimeoutException

from research_core.schemas import Source
from research_core.search.base import MAX_RESULTS_PER_QUERY, QueryCache, SearchError, clip_source

logger = logging.getLogger(__name__)

RATE_LIMIT_MESSAGE = "DuckDuckGo is rate-limiting requests; wait a minute or use the library backend."
UNREACHABLE_MESSAGE = (
    "Web search is unreachable (no network?): {detail}. Add documents to the local library or check your connection."
)
TIMEOUT_MESSAGE = "Web search got no answer in time for a query ({attempts}); web search stays on for the next queries."
MAX_DETAIL_CHARS = 200
# Extra attempts after a timeout (at most `max_retries`): each attempt may take `deadline_s`.
TIMEOUT_RETRIES = 1

# Lower-cased fragments of error messages (ddgs, primp, the OS) and what they mean.
_NO_RESULTS_MARKERS = ("no results found",)
_RATE_LIMIT_MARKERS = ("ratelimit", "rate limit", "rate-limit", "too many requests", "http 429", "status 429")
# Failures that mean the network itself is missing: checked before timeouts.
_OFFLINE_MARKERS = (
    "dnserror",
    "dns error",
    "error resolving dns",
    "name or service not known",
    "temporary failure in name resolution",
    "failed to lookup address",
    "nodename nor servname",
    "getaddrinfo",
    "connection refused",
    "network is unreachable",
    "no route to host",
)
_TIMEOUT_MARKERS = ("timed out", "timeout")
_UNREACHABLE_MARKERS = (
    *_OFFLINE_MARKERS,
    "connecterror",
    "connection reset",
    "connection aborted",
    "error sending request",
)

ErrorKind = Literal["no_results", "rate_limit", "timeout", "unreachable", "other"]


class SearchTimeoutError(SearchError):
    """A query got no answer in time, even after a retry: a transient failure of that query only."""

    def __init__(self, backend: str, user_message: str):
        super().__init__(backend, user_message, retryable=True, unreachable=False)


class TextSearchClient(Protocol):
    """The part of `ddgs.DDGS` that WebSearch uses."""

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        """Return result dicts with `title`, `href` and `body`."""
        ...


ClientFactory = Callable[..., TextSearchClient]
"""Called as `factory(timeout=seconds)`; `ddgs.DDGS` by default."""


def _default_client_factory(timeout: float) -> TextSearchClient:
    from ddgs import DDGS

    return DDGS(timeout=timeout)  # type: ignore[arg-type]  # ddgs annotates int, accepts float


_URL = re.compile(r"https?://\S+")


def _error_text(exc: BaseException) -> str:
    """The messages of an exception and of those it wraps, lower-cased, without URLs.

    URLs go because they carry the query, whose words must not look like an error.
    """
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts.append(f"{type(current).__name__}: {current}")
        current = current.__cause__ or current.__context__
    return _URL.sub("<url>", " | ".join(parts)).lower()


def classify_error(exc: BaseException) -> ErrorKind:
    """Tell a rate limit, a slow answer, an unreachable network and an empty answer apart.

    DNS and connection failures mean the network is missing ("unreachable"); a timeout only
    means that this answer was slow ("timeout").
    """
    if isinstance(exc, RatelimitException):
        return "rate_limit"
    text = _error_text(exc)
    if any(marker in text for marker in _OFFLINE_MARKERS):
        return "unreachable"
    if isinstance(exc, TimeoutException | TimeoutError) or any(marker in text for marker in _TIMEOUT_MARKERS):
        return "timeout"
    if isinstance(exc, ConnectionError) or any(marker in text for marker in _UNREACHABLE_MARKERS):
        return "unreachable"
    if any(marker in text for marker in _RATE_LIMIT_MARKERS):
        return "rate_limit"
    if any(marker in text for marker in _NO_RESULTS_MARKERS):
        return "no_results"
    if isinstance(exc, OSError):
        return "unreachable"
    return "other"


_UNREACHABLE_REASONS = (
    (
        (
            "dnserror",
            "error resolving dns",
            "name or service not known",
            "temporary failure in name resolution",
            "failed to lookup address",
            "nodename nor servname",
            "getaddrinfo",
        ),
        "DNS lookup failed",
    ),
    (("connection refused",), "connection refused"),
    (("network is unreachable", "no route to host"), "network is unreachable"),
    (("timed out", "timeout"), "no answer in time"),
)


def _short_detail(exc: BaseException) -> str:
    """A one-line, bounded description of an error for the user message (URLs left out)."""
    text = _URL.sub("<url>", " ".join(str(exc).split())) or type(exc).__name__
    if len(text) > MAX_DETAIL_CHARS:
        text = text[: MAX_DETAIL_CHARS - 1] + "…"
    return text.rstrip(".")


def _unreachable_reason(exc: BaseException) -> str:
    """Why the network looks unreachable, in a few words."""
    text = _error_text(exc)
    for markers, reason in _UNREACHABLE_REASONS:
        if any(marker in text for marker in markers):
            return reason
    return _short_detail(exc)


def is_web_url(url: str) -> bool:
    """True for absolute http(s) URLs with a host."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


def rank_relevance(rank: int) -> float:
    """Relevance by rank: 1.0 for the first result, 0.1 less for each next one, never below 0.1."""
    return round(max(0.1, 1.0 - 0.1 * rank), 2)


class WebSearch:
    """Web search through `ddgs`, as a SearchBackend named "ddg".

    Only `SearchError` ever leaves `search`: `retryable=True` after rate limits outlast the
    retries, `SearchTimeoutError` (retryable) when a query stays unanswered after a retry,
    `unreachable=True` when the network cannot be reached (DNS or connection failures).
    """

    name = "ddg"

    def __init__(
        self,
        timeout_s: float = 10,
        max_retries: int = 2,
        backoff_s: float = 2.0,
        client_factory: ClientFactory | None = None,
        *,
        engines: str = "auto",
        region: str = "us-en",
        sleep: Callable[[float], None] = time.sleep,
    ):
        """Configure the backend.

        `timeout_s` bounds each HTTP request; a whole attempt is abandoned after
        `2 * timeout_s + 1` seconds. Rate limits are retried `max_retries` times after
        `backoff_s`, `2 * backoff_s`, `4 * backoff_s` ... seconds; a timeout is retried once
        (if `max_retries` allows) after `backoff_s`. `engines` is ddgs' `backend`
        argument ("auto", or a comma list such as "duckduckgo,brave"). `client_factory` and
        `sleep` are for tests.
        """
        self.timeout_s = float(timeout_s)
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = max(0.0, float(backoff_s))
        self.client_factory: ClientFactory = client_factory or _default_client_factory
        self.engines = engines
        self.region = region
        self.cache = QueryCache()
        self._sleep = sleep

    @property
    def deadline_s(self) -> float:
        """Wall-clock bound of one attempt (ddgs may query several engines one after another)."""
        return 2 * self.timeout_s + 1

    def search(self, query: str, max_results: int) -> list[Source]:
        """Return at most `max_results` web sources, best first; raise SearchError on failure."""
        limit = min(int(max_results), MAX_RESULTS_PER_QUERY)
        query = " ".join(query.split())
        if limit <= 0 or not query:
            return []
        cached = self.cache.get(query, limit)
        if cached is not None:
            return cached
        attempt = 0
        timeouts = 0
        engines = self.engines
        while True:
            try:
                raw = self._fetch(query, limit, engines)
                break
            except Exception as exc:
                kind = classify_error(exc)
                if engines != "auto" and kind != "unreachable":
                    logger.info("web search with %s failed for %r (%s); trying the other engines", engines, query, kind)
                    engines = "auto"
                    continue
                if kind == "no_results":
                    logger.info("web search: no results for %r", query)
                    return []
                if kind == "rate_limit":
                    if attempt < self.max_retries:
                        delay = self.backoff_s * (2**attempt)
                        attempt += 1
                        logger.warning(
                            "web search rate-limited; retry %d/%d in %.1fs", attempt, self.max_retries, delay
                        )
                        self._sleep(delay)
                        continue
                    raise SearchError(self.name, RATE_LIMIT_MESSAGE, retryable=True) from exc
                if kind == "timeout":
                    timeouts += 1
                    if timeouts <= min(self.max_retries, TIMEOUT_RETRIES):
                        logger.warning("web search timed out for %r; retrying in %.1fs", query, self.backoff_s)
                        self._sleep(self.backoff_s)
                        continue
                    attempts = f"{timeouts} attempt{'s' if timeouts != 1 else ''}"
                    message = TIMEOUT_MESSAGE.format(attempts=attempts)
                    raise SearchTimeoutError(self.name, message) from exc
                if kind == "unreachable":
                    message = UNREACHABLE_MESSAGE.format(detail=_unreachable_reason(exc))
                    raise SearchError(self.name, message, unreachable=True) from exc
                logger.warning("web search failed for %r: %r", query, exc)
                raise SearchError(self.name, f"Web search failed: {_short_detail(exc)}.", retryable=True) from exc
        sources = self._to_sources(raw, limit)
        self.cache.put(query, limit, sources)
        return sources

    def _fetch(self, query: str, limit: int, engines: str) -> list[Any]:
        """One attempt, in a daemon thread so a hung connection cannot outlive the deadline."""
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                client = self.client_factory(timeout=self.timeout_s)
                outcome["results"] = client.text(query, max_results=limit, backend=engines, region=self.region)
            except Exception as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=call, name="arbor-web-search", daemon=True)
        worker.start()
        worker.join(self.deadline_s)
        if worker.is_alive():
            raise TimeoutError(f"no answer within {self.deadline_s:.0f}s")
        if "error" in outcome:
            raise outcome["error"]
        results = outcome.get("results")
        if results is None:
            return []
        if not isinstance(results, list):
            raise TypeError(f"the search client returned {type(results).__name__}, not a list")
        return results

    def _to_sources(self, raw: list[Any], limit: int) -> list[Source]:
        """Map ddgs result dicts to Sources: http(s) only, no duplicates, relevance by rank."""
        sources: list[Source] = []
        seen: set[str] = set()
        for item in raw:
            if not isinstance(item, dict):
                continue
            url = str(item.get("href") or "").strip()
            if not is_web_url(url) or url in seen:
                continue
            seen.add(url)
            title = " ".join(str(item.get("title") or "").split()) or url
            snippet = " ".join(str(item.get("body") or "").split())
            source = Source.make(url, title, snippet, rank_relevance(len(sources)), self.name)
            sources.append(clip_source(source))
            if len(sources) >= limit:
                break
        return sources
