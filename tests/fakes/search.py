"""Search backends for tests: a fixture corpus matched by word overlap, and a failing backend."""

from __future__ import annotations

import json
import re
from pathlib import Path

from research_core.schemas import Source
from research_core.search.base import SearchError

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "search_corpus.json"


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2}


class FixtureSearch:
    """Answers from a recorded corpus (tests/fixtures/search_corpus.json) by word overlap."""

    def __init__(self, name: str = "fixture", corpus: list[dict] | None = None, min_results: int = 2):
        self.name = name
        self.corpus = corpus if corpus is not None else json.loads(CORPUS.read_text(encoding="utf-8"))
        self.min_results = min_results
        self.queries: list[str] = []

    def search(self, query: str, max_results: int) -> list[Source]:
        self.queries.append(query)
        q = _words(query)
        scored = sorted(self.corpus, key=lambda d: (-len(q & _words(d["title"] + " " + d["snippet"])), d["url"]))
        hits = scored[: max(self.min_results, max_results)][:max_results]
        return [
            Source.make(d["url"], d["title"], d["snippet"], round(1.0 - i * 0.1, 2), self.name)
            for i, d in enumerate(hits)
        ]


class FailingSearch:
    """Always raises the given SearchError (unreachable by default), counting calls."""

    def __init__(self, name: str = "ddg", error: SearchError | None = None):
        self.name = name
        self.error = error or SearchError(name, "Web search is unreachable (no network?).", unreachable=True)
        self.calls = 0

    def search(self, query: str, max_results: int) -> list[Source]:
        self.calls += 1
        raise self.error
