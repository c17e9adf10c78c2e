"""The one interface every search backend implements, and the one error type it raises."""

from __future__ import annotations

import threading
from typing import Protocol, runtime_checkable

from research_core.errors import ArborError
from research_core.schemas import Source
from research_core.text.sanitize import strip_control_chars

# Hard bounds so a misbehaving backend cannot flood the engine or the checkpoint.
MAX_RESULTS_PER_QUERY = 20
MAX_SNIPPET_CHARS = 1500
MAX_TITLE_CHARS = 300
MAX_URL_CHARS = 2048


class SearchError(ArborError):
    """A backend could not answer. `user_message` says what happened and what to do."""

    def __init__(self, backend: str, user_message: str, *, retryable: bool = False, unreachable: bool = False):
        super().__init__(user_message, detail=f"{backend}: {user_message}")
        self.backend = backend
        self.retryable = retryable
        self.unreachable = unreachable


@runtime_checkable
class SearchBackend(Protocol):
    """A search backend returns Source records for a query."""

    name: str

    def search(self, query: str, max_results: int) -> list[Source]:
        """Return at most `max_results` sources, best first; raise SearchError on failure."""
        ...


def clip_source(source: Source) -> Source:
    """Bound the URL, title and snippet of a source (untrusted content can be huge), and remove
    control and bidi characters from its title and snippet.

    The id is kept: it was derived from the full URL, so duplicates still collapse.
    """
    return source.model_copy(
        update={
            "url": source.url[:MAX_URL_CHARS],
            "title": " ".join(strip_control_chars(source.title[:MAX_TITLE_CHARS]).split()),
            "snippet": strip_control_chars(source.snippet[:MAX_SNIPPET_CHARS]),
        }
    )


class QueryCache:
    """Answers to queries already asked, for the life of one backend object (one run).

    Keyed by the query with its whitespace and case folded, and by the number of results asked
    for; bounded, oldest entries dropped first. Thread-safe (parallel branches share a backend).
    """

    def __init__(self, max_entries: int = 256):
        self.max_entries = max_entries
        self.hits = 0
        self._entries: dict[tuple[str, int], list[Source]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _key(query: str, limit: int) -> tuple[str, int]:
        return " ".join(query.lower().split()), int(limit)

    def get(self, query: str, limit: int) -> list[Source] | None:
        """A copy of the cached answer, or None."""
        with self._lock:
            found = self._entries.get(self._key(query, limit))
            if found is not None:
                self.hits += 1
                return list(found)
        return None

    def put(self, query: str, limit: int, sources: list[Source]) -> None:
        """Remember an answer."""
        with self._lock:
            self._entries[self._key(query, limit)] = list(sources)
            while len(self._entries) > self.max_entries:
                self._entries.pop(next(iter(self._entries)))
