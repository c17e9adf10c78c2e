"""Ranking search hits by meaning as well as by words.

Word ranking (bm25) cannot tell a page about the thing asked from a page that repeats its words:
"PostgreSQL window functions" ranks *Installation from Source Code on Windows* above PostgreSQL's
own *Window Functions* tutorial, because the stemmer makes "Windows" a "window". The rule: the
word ranking proposes a pool of `POOL` hits, and each hit's score becomes its word relevance
(0-1, relative to the best hit) times `WORD_WEIGHT` plus the cosine between the query and the
hit's title with the start of its passage (`text.embedding`). Only queries in Latin script are
re-ranked: the bundled model reads English. Without the model, the word ranking stands.

Measured with `bench.retrieval` (k=5, the engine's first searches of 18 questions over 2,465
manual pages, and 9 over the servers corpus): labelled pages found 32 -> 36 of 49 and 18 -> 19
of 19, aspects in the text a small model is shown 53 -> 55 of 66 and 27 -> 28 of 35. Word weights
0.25, 0.5, 1.5 and 2.0 found 33-34 of 49; a pool of 40 did no better than 20.
"""

from __future__ import annotations

import logging
from typing import Any

from research_core.text import embedding
from research_core.text.embedding_cache import cached_vectors

logger = logging.getLogger(__name__)

POOL = 20
WORD_WEIGHT = 1.0
SHOWN_CHARS = 400  # of a passage: about the 128 tokens the model reads


def hit_text(row: dict[str, Any]) -> str:
    """What the model compares with the query: the title, then the start of the passage."""
    return f"{row.get('title') or ''}. {str(row.get('text') or '')[:SHOWN_CHARS]}"


def latin_script(query: str) -> bool:
    """Whether nearly all of the query's letters are ASCII: the script the bundled model reads
    (keyword queries such as "PostgreSQL window functions" have no English function words to go by)."""
    letters = [ch for ch in query if ch.isalpha()]
    return bool(letters) and sum(ch.isascii() for ch in letters) >= 0.9 * len(letters)


def by_meaning(query: str, rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The best `limit` of `rows` (dicts with title, text and a 0-1 `relevance`) by word relevance
    and meaning; each kept row's `relevance` becomes its score relative to the best one. Rows come
    back as given (cut to `limit`) for a query in another script or when the model is missing."""
    if len(rows) <= 1 or not latin_script(query) or not embedding.available():
        return rows[:limit]
    try:
        query_vector = embedding.embed([query])[0]
        vectors = cached_vectors([hit_text(row) for row in rows])
    except Exception as exc:  # a broken model install must not stop a search
        logger.warning("meaning ranking skipped: %r", exc)
        return rows[:limit]
    scores = [
        WORD_WEIGHT * float(row.get("relevance") or 0.0) + float(v @ query_vector)
        for row, v in zip(rows, vectors, strict=True)
    ]
    ranked = sorted(zip(rows, scores, strict=True), key=lambda pair: -pair[1])[:limit]
    top = max(ranked[0][1], 1e-9)
    return [{**row, "relevance": round(max(0.01, min(1.0, score / top)), 3)} for row, score in ranked]
