"""The document library's search on PostgreSQL: its own full-text search.

Each passage carries a generated `tsvector` (English stemming, like FTS5's porter) with a GIN
index; a query's terms are OR-ed by `websearch_to_tsquery`, which never fails on syntax, and
passages are ranked by `ts_rank_cd`. A query of common words only (which English stemming drops)
is matched without stemming instead, so it still finds the passages that contain them.
Chinese, Japanese and Korean, which PostgreSQL's parser does not split into words, are matched
by substrings (a CJK phrase's bigrams), relevance being the share of them a passage holds.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, literal_column, or_, select

from research_core.search.library_fts import like_escape, like_terms
from research_core.search.library_ranking import MAX_RANKED_CHUNKS, choose_passages
from research_core.search.library_tables import chunks, documents
from research_core.text.fts_query import has_cjk

STEMMED = "english"
UNSTEMMED = "simple"
TSV = literal_column("library_chunks.tsv")
POSTGRES_SEARCH_SCHEMA = (
    "ALTER TABLE library_chunks ADD COLUMN IF NOT EXISTS tsv tsvector "
    f"GENERATED ALWAYS AS (to_tsvector('{STEMMED}', text)) STORED",
    "CREATE INDEX IF NOT EXISTS library_chunks_tsv ON library_chunks USING gin (tsv)",
)


def _match(conn: Connection, terms: list[str]) -> tuple[Any, Any]:
    """(the tsvector to search, the tsquery): stemmed, unless stemming leaves the query empty."""
    words = " OR ".join(f'"{term}"' for term in terms)
    stemmed = func.websearch_to_tsquery(STEMMED, words)
    if conn.execute(select(func.numnode(stemmed))).scalar():
        return TSV, stemmed
    return func.to_tsvector(UNSTEMMED, chunks.c.text), func.websearch_to_tsquery(UNSTEMMED, words)


def postgres_search(conn: Connection, terms: list[str], limit: int) -> list[dict[str, Any]]:
    """The hits of a query's terms: full-text words, or substrings for CJK."""
    if has_cjk(" ".join(terms)):
        return _substring_rows(conn, like_terms(terms), limit)
    vector, query = _match(conn, terms)
    score = func.ts_rank_cd(vector, query)
    ranked = conn.execute(
        select(chunks.c.doc_id, chunks.c.id, score)
        .where(vector.op("@@")(query))
        .order_by(score.desc(), chunks.c.id)
        .limit(MAX_RANKED_CHUNKS)
    ).all()
    return choose_passages(conn, [(doc_id, chunk_id, float(s)) for doc_id, chunk_id, s in ranked], terms, limit)


def postgres_passages(conn: Connection, terms: list[str], url: str, limit: int) -> list[tuple]:
    """(url, title, text, place) of the passages of the document at `url` matching the terms, best first."""
    vector, query = _match(conn, terms)
    score = func.ts_rank_cd(vector, query)
    found = conn.execute(
        select(documents.c.url, documents.c.title, chunks.c.text, chunks.c.place)
        .join(documents, documents.c.id == chunks.c.doc_id)
        .where(vector.op("@@")(query), documents.c.url == url)
        .order_by(score.desc(), chunks.c.id)
        .limit(int(limit))
    )
    return [tuple(row) for row in found]


def _substring_rows(conn: Connection, terms: list[str], limit: int) -> list[dict[str, Any]]:
    """The passage holding most of the substrings, per document; relevance = the share it holds."""
    if not terms:
        return []
    found = conn.execute(
        select(chunks.c.doc_id, documents.c.url, documents.c.title, chunks.c.text, chunks.c.place)
        .join(documents, documents.c.id == chunks.c.doc_id)
        .where(or_(*(chunks.c.text.like(f"%{like_escape(t)}%", escape="\\") for t in terms)))
        .order_by(chunks.c.id)
    ).all()
    best: dict[str, tuple[int, Any]] = {}
    for row in found:
        hits = sum(term in row.text for term in terms)
        if hits > best.get(row.doc_id, (0, None))[0]:
            best[row.doc_id] = (hits, row)
    chosen = sorted(best.values(), key=lambda hit: (-hit[0], hit[1].title))[:limit]
    return [
        {"url": r.url, "title": r.title, "text": r.text, "place": r.place, "relevance": round(hits / len(terms), 3)}
        for hits, r in chosen
    ]
