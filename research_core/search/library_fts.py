"""The document library's search on SQLite: FTS5 indexes kept in step by triggers.

- `library_fts` (porter + unicode61) ranks word queries with bm25;
- `library_fts_trigram` (trigram) serves Chinese, Japanese and Korean queries, which have no
  spaces between words for unicode61 to split on. Queries shorter than a trigram fall back to
  LIKE on the passages.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import Connection

from research_core.search.library_ranking import MAX_RANKED_CHUNKS, choose_passages
from research_core.text.fts_query import MAX_QUERY_TERMS, has_cjk, trigram_match, word_match


def trigram_supported() -> bool:
    """Whether this SQLite has FTS5's trigram tokenizer (3.34+)."""
    return sqlite3.sqlite_version_info >= (3, 34, 0)


def fts_schema(trigram: bool) -> list[str]:
    """The FTS5 indexes over `library_chunks` and the triggers that keep them in step."""
    fts_tables = ["library_fts"] + (["library_fts_trigram"] if trigram else [])
    statements = [
        "CREATE VIRTUAL TABLE IF NOT EXISTS library_fts USING fts5("
        "text, content='library_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    ]
    if trigram:
        statements.append(
            "CREATE VIRTUAL TABLE IF NOT EXISTS library_fts_trigram USING fts5("
            "text, content='library_chunks', content_rowid='id', tokenize='trigram')"
        )
    insert = "".join(f"INSERT INTO {t}(rowid, text) VALUES (new.id, new.text); " for t in fts_tables)
    delete = "".join(f"INSERT INTO {t}({t}, rowid, text) VALUES ('delete', old.id, old.text); " for t in fts_tables)
    statements += [
        f"CREATE TRIGGER IF NOT EXISTS library_chunks_ai AFTER INSERT ON library_chunks BEGIN {insert}END",
        f"CREATE TRIGGER IF NOT EXISTS library_chunks_ad AFTER DELETE ON library_chunks BEGIN {delete}END",
        f"CREATE TRIGGER IF NOT EXISTS library_chunks_au AFTER UPDATE ON library_chunks BEGIN {delete}{insert}END",
    ]
    return statements


def like_escape(term: str) -> str:
    """`term` with LIKE's wildcards and the escape character escaped (ESCAPE '\\')."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_terms(terms: list[str]) -> list[str]:
    """Substrings for the LIKE fallback: CJK phrases become bigrams, other terms stay whole."""
    out: dict[str, None] = {}
    for term in terms:
        if has_cjk(term) and len(term) > 2:
            for i in range(len(term) - 1):
                out.setdefault(term[i : i + 2], None)
        else:
            out.setdefault(term, None)
    return list(out)[:MAX_QUERY_TERMS]


def sqlite_search(conn: Connection, terms: list[str], limit: int, *, trigram: bool) -> list[dict[str, Any]]:
    """The hits of a query's terms: FTS5 words, else trigrams for CJK, else LIKE."""
    if not has_cjk(" ".join(terms)):
        return _fts_rows(conn, "library_fts", word_match(terms), limit, terms)
    if trigram:
        match, short = trigram_match(terms)
        rows = _fts_rows(conn, "library_fts_trigram", match, limit, terms) if match else []
        if rows or not short:
            return rows
        return _like_rows(conn, short, limit)
    return _like_rows(conn, like_terms(terms), limit)


def sqlite_passages(conn: Connection, terms: list[str], url: str, limit: int) -> list[tuple]:
    """(url, title, text, place) of the passages of the document at `url` matching the terms, best first."""
    return conn.exec_driver_sql(
        "SELECT d.url, d.title, c.text, c.place FROM library_fts "
        "JOIN library_chunks AS c ON c.id = library_fts.rowid "
        "JOIN library_documents AS d ON d.id = c.doc_id "
        "WHERE library_fts MATCH ? AND d.url = ? ORDER BY bm25(library_fts) LIMIT ?",
        (word_match(terms), url, int(limit)),
    ).fetchall()


def _fts_rows(conn: Connection, table: str, match: str, limit: int, terms: list[str]) -> list[dict[str, Any]]:
    """Passages ranked by bm25 (lower is better, so negated), then chosen (`choose_passages`)."""
    ranked = conn.exec_driver_sql(
        f"SELECT c.doc_id, c.id, bm25({table}) AS score FROM {table} "
        f"JOIN library_chunks AS c ON c.id = {table}.rowid "
        f"WHERE {table} MATCH ? ORDER BY score LIMIT ?",
        (match, MAX_RANKED_CHUNKS),
    ).fetchall()
    return choose_passages(conn, [(doc_id, chunk_id, -score) for doc_id, chunk_id, score in ranked], terms, limit)


def _like_rows(conn: Connection, terms: list[str], limit: int) -> list[dict[str, Any]]:
    """Substring search for what the FTS indexes cannot match; relevance = share of terms found."""
    if not terms:
        return []
    hits = " + ".join("(c.text LIKE ? ESCAPE '\\')" for _ in terms)
    sql = f"""
        SELECT d.url, d.title, c.text, c.place, max(h.hits) AS hits
        FROM (SELECT c.id, {hits} AS hits FROM library_chunks AS c) AS h
        JOIN library_chunks AS c ON c.id = h.id
        JOIN library_documents AS d ON d.id = c.doc_id
        WHERE h.hits > 0
        GROUP BY c.doc_id
        ORDER BY hits DESC, d.title
        LIMIT ?
    """
    params = [f"%{like_escape(t)}%" for t in terms]
    found = conn.exec_driver_sql(sql, (*params, limit)).fetchall()
    return [
        {"url": url, "title": title, "text": text, "place": place, "relevance": round(hits / len(terms), 3)}
        for url, title, text, place, hits in found
    ]
