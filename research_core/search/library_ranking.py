"""Choosing a library search's hits from ranked passages, the same on both engines.

A search ranks passages (FTS5's bm25 on SQLite, `ts_rank_cd` on PostgreSQL); the rule that turns
them into hits is one: the best passage of each document, its score raised by the share of the
query's terms in the document's title (`title_share`), best first, relevance relative to the best.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from research_core.search.library_tables import chunks, documents
from research_core.text.fts_query import title_share

# A title naming every query term raises a document's score by half: bm25 over passages alone ranks
# a long page that repeats the words above the page they are the title of. (On the benchmark's 18
# questions over 2,465 manual pages, 0.5 raised the aspects found in the top 5 from 54 to 55 of 66
# and kept results from the right manual at 87 of 90; 1.0 let other manuals' titles in: 83 of 90.)
TITLE_WEIGHT = 0.5
MAX_RANKED_CHUNKS = 2000  # passages ranked per query before keeping the best one of each document


def choose_passages(
    conn: Connection, ranked: list[tuple[str, int, float]], terms: list[str], limit: int
) -> list[dict[str, Any]]:
    """Hits from `ranked` (document id, passage id, score: higher is better), best passage first.

    Each hit is a dict of url, title, text, place and relevance (0.01-1, relative to the best).
    """
    best_chunk: dict[str, tuple[int, float]] = {}
    for doc_id, chunk_id, score in ranked:
        best_chunk.setdefault(doc_id, (chunk_id, score))
    if not best_chunk:
        return []
    # at most MAX_RANKED_CHUNKS ids: within SQLite's 32,766 bound variables
    found = conn.execute(select(documents.c.id, documents.c.title).where(documents.c.id.in_(list(best_chunk))))
    titles = {doc_id: title for doc_id, title in found}
    for doc_id, (chunk_id, score) in best_chunk.items():
        boost = 1.0 + TITLE_WEIGHT * title_share(terms, titles.get(doc_id, ""))
        best_chunk[doc_id] = (chunk_id, score * boost)
    chosen = sorted(best_chunk.values(), key=lambda hit: -hit[1])[:limit]
    query = (
        select(chunks.c.id, documents.c.url, documents.c.title, chunks.c.text, chunks.c.place)
        .join(documents, documents.c.id == chunks.c.doc_id)
        .where(chunks.c.id.in_([chunk_id for chunk_id, _ in chosen]))
    )
    details = {row.id: row for row in conn.execute(query)}
    top = max(score for _, score in chosen) or 1.0
    return [
        {
            "url": details[chunk_id].url,
            "title": details[chunk_id].title,
            "text": details[chunk_id].text,
            "place": details[chunk_id].place,
            "relevance": round(max(0.01, min(1.0, score / top)), 3),
        }
        for chunk_id, score in chosen
        if chunk_id in details
    ]
