"""Search backends by name, and a quick check of whether one is usable right now."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from research_core.errors import ArborError
from research_core.net.credentials import with_credentials
from research_core.search.base import SearchBackend, SearchError
from research_core.search.library import DocumentLibrary
from research_core.search.searxng import ENV_URL as SEARXNG_ENV_URL
from research_core.search.searxng import SearxngSearch
from research_core.search.web import SearchTimeoutError, WebSearch
from research_core.storage.location import StoreLocation

logger = logging.getLogger(__name__)

# Accepted names -> canonical backend name.
BACKEND_ALIASES = {"ddg": "ddg", "web": "ddg", "library": "library", "searxng": "searxng"}
CHECK_QUERY = "wikipedia"
CHECK_TIMEOUT_S = 5.0
EMPTY_LIBRARY_MESSAGE = "empty: add documents with `python -m research_core library add PATH`"


class UnknownBackendError(ArborError, ValueError):
    """A search backend name Arbor does not know. `user_message` names the valid ones."""

    def __init__(self, name: str):
        super().__init__(f"Unknown search backend {name!r}; known backends: {', '.join(known_backends())}.")


def known_backends() -> list[str]:
    """The names `build_backends` accepts."""
    return sorted(BACKEND_ALIASES)


def canonical_backend(name: str) -> str:
    """The canonical name of a backend ("web" -> "ddg"); raises UnknownBackendError."""
    canonical = BACKEND_ALIASES.get(name.strip().lower())
    if canonical is None:
        raise UnknownBackendError(name.strip())
    return canonical


def parse_backend_names(text: str) -> list[str]:
    """Canonical backend names, once each, from a comma list such as "ddg, library".

    Raises UnknownBackendError for an unknown name, ValueError for an empty list.
    """
    names = [canonical_backend(part) for part in text.split(",") if part.strip()]
    if not names:
        raise ValueError(f"Name at least one search backend: {', '.join(known_backends())}.")
    return list(dict.fromkeys(names))


def searxng_url_from(explicit: str | None) -> str | None:
    """The SearXNG URL to use: the explicit one (a setting or flag), else $ARBOR_SEARXNG_URL, else None."""
    if explicit is not None and explicit.strip():
        return explicit.strip()
    return os.environ.get(SEARXNG_ENV_URL, "").strip() or None


def build_backends(
    names: list[str], db_path: StoreLocation | Path | str, *, searxng_url: str | None = None
) -> list[SearchBackend]:
    """Build the named backends, in order, once each ("ddg" and "web" are the same backend).

    Raises UnknownBackendError (a ValueError) for an unknown name; the library lives in the
    database `db_path` (a path, a URL or a `StoreLocation`); SearXNG is at `searxng_url`, else
    at $ARBOR_SEARXNG_URL (without either it is built anyway and reports itself unreachable,
    naming where to set the URL), with the credentials this process holds for that URL
    (`research_core.net.credentials`).
    """
    backends: list[SearchBackend] = []
    built: set[str] = set()
    for raw in names:
        canonical = canonical_backend(raw)
        if canonical in built:
            continue
        built.add(canonical)
        if canonical == "ddg":
            backends.append(WebSearch())
        elif canonical == "searxng":
            backends.append(SearxngSearch(with_credentials(searxng_url_from(searxng_url))))
        else:
            backends.append(DocumentLibrary(db_path))
    return backends


def check_backend(backend: SearchBackend, timeout_s: float = CHECK_TIMEOUT_S) -> tuple[bool, str]:
    """Whether a backend is usable right now, and a short explanation.

    Web search runs one quick query (no retries, `timeout_s` per request); the library must
    hold at least one document. Never raises.
    """
    try:
        if isinstance(backend, DocumentLibrary):
            return _check_library(backend)
        if isinstance(backend, SearxngSearch):
            backend = SearxngSearch(
                backend.base_url,
                timeout_s=min(backend.timeout_s, timeout_s),
                max_retries=0,
                backoff_s=0,
                categories=backend.categories,
                transport=backend.transport,
            )
        if isinstance(backend, WebSearch):
            backend = WebSearch(
                timeout_s=min(backend.timeout_s, timeout_s),
                max_retries=0,
                backoff_s=0,
                client_factory=backend.client_factory,
                engines=backend.engines,
                region=backend.region,
            )
        results = backend.search(CHECK_QUERY, 3)
    except SearchTimeoutError:
        return False, f"slow: no answer in time for a test query (within {timeout_s:.0f} s)"
    except SearchError as exc:
        if exc.unreachable:
            return False, f"unreachable: {exc.user_message}"
        if exc.retryable:
            return False, f"busy: {exc.user_message}"
        return False, exc.user_message
    except Exception as exc:  # a check must report, not crash the caller
        logger.warning("checking search backend %s failed", getattr(backend, "name", backend), exc_info=True)
        return False, f"failed: {type(exc).__name__}: {exc}"
    if results:
        return True, f"reachable ({len(results)} results for a test query)"
    return True, "reachable (no results for a test query)"


def _check_library(library: DocumentLibrary) -> tuple[bool, str]:
    count = library.count()
    if count == 0:
        return False, EMPTY_LIBRARY_MESSAGE
    return True, f"{count} document{'s' if count != 1 else ''}"
