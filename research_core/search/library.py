"""DocumentLibrary: the user's own documents, searched with SQLite FTS5.

Documents (.txt, .md, .html/.htm, .pdf, .docx, .pptx, .xlsx, .csv) are converted to plain text and
split into passages by `research_core.documents.parsing`, and indexed twice:

- `library_fts` (porter + unicode61) ranks word queries with bm25;
- `library_fts_trigram` (trigram) serves Chinese, Japanese and Korean queries, which have no
  spaces between words for unicode61 to split on. Queries shorter than a trigram fall back to
  LIKE on the passages.

Each passage keeps its place in the document (`research_core.documents`): the page of a PDF, the
slide of a deck, the sheet and rows of a workbook, the heading of a Word section. A search hit
carries it as its URL's fragment (`report.pdf#page=12`) and its title names it ("Report, p. 12").
A file that is read only in part (a limit reached, pages without text) is indexed with a `note`.

Everything lives in Arbor's one SQLite file, in tables prefixed `library_`. Every operation
opens its own connection (WAL mode, busy timeout), so one library can serve several threads;
adding a document is one transaction, so a refused or failed add stores nothing.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import sqlite_utils
from pydantic import BaseModel, Field

from research_core.db import connect
from research_core.documents.parsing import (
    LibraryError,
    ParsedDocument,
    check_size,
    kind_for_name,
    located_chunks,
    parse_document,
    parse_text,
)
from research_core.documents.places import place_from_fragment
from research_core.schemas import Source, stable_id, utc_now
from research_core.search.base import MAX_RESULTS_PER_QUERY, SearchError, clip_source
from research_core.storage.location import StoreLocation, locate
from research_core.text.fts_query import MAX_QUERY_TERMS, has_cjk, query_terms, title_share, trigram_match, word_match

logger = logging.getLogger(__name__)

# passages of one document offered to a branch that has read its best one
MAX_PASSAGES_OF_DOCUMENT = 8
# A title naming every query term raises a document's score by half: bm25 over passages alone ranks
# a long page that repeats the words above the page they are the title of. (On the benchmark's 18
# questions over 2,465 manual pages, 0.5 raised the aspects found in the top 5 from 54 to 55 of 66
# and kept results from the right manual at 87 of 90; 1.0 let other manuals' titles in: 83 of 90.)
TITLE_WEIGHT = 0.5
MAX_RANKED_CHUNKS = 2000  # passages ranked per query before keeping the best one of each document


class LibraryDocument(BaseModel):
    """One document of the library (its text lives in `library_chunks`)."""

    id: str
    name: str
    path: str | None = None
    url: str
    title: str
    kind: str
    chars: int
    chunks: int
    added_at: str
    note: str = Field(
        default="", description="what was not indexed and why (a limit, pages without text); '' if all was"
    )


def located_source(row: dict[str, Any], backend: str) -> Source:
    """A search hit as a Source: a passage with a place gets `url#fragment` and the place's label in its title."""
    place = place_from_fragment(row["place"]) if row.get("place") else None
    if place is None:
        return Source.make(row["url"], row["title"], row["text"], row["relevance"], backend)
    url = f"{row['url']}#{place.fragment()}"
    return Source.make(url, f"{row['title']}, {place.label()}", row["text"], row["relevance"], backend)


def _document(row: dict[str, Any]) -> LibraryDocument:
    return LibraryDocument(**{**row, "note": row.get("note") or ""})


# ---- the LIKE fallback ----------------------------------------------------------------


def _like_escape(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _like_terms(terms: list[str]) -> list[str]:
    """Substrings for the LIKE fallback: CJK phrases become bigrams, other terms stay whole."""
    out: dict[str, None] = {}
    for term in terms:
        if has_cjk(term) and len(term) > 2:
            for i in range(len(term) - 1):
                out.setdefault(term[i : i + 2], None)
        else:
            out.setdefault(term, None)
    return list(out)[:MAX_QUERY_TERMS]


# ---- the library -----------------------------------------------------------------------


def _trigram_supported() -> bool:
    return sqlite3.sqlite_version_info >= (3, 34, 0)


def _fts_schema(trigram: bool) -> list[str]:
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


_DOCUMENT_COLUMNS = {
    "id": str,
    "key": str,
    "name": str,
    "path": str,
    "url": str,
    "title": str,
    "kind": str,
    "chars": int,
    "chunks": int,
    "added_at": str,
    "note": str,
}
# Columns added since the first library: (table, column) -> type; older files get them on open.
_LATER_COLUMNS = {("library_documents", "note"): str, ("library_chunks", "place"): str}


def _add_missing_columns(db: sqlite_utils.Database) -> None:
    """Add the columns a library file made before places and notes lacks (NULL in old rows)."""
    for (table, column), kind in _LATER_COLUMNS.items():
        if column not in db[table].columns_dict:
            db[table].add_column(column, kind)


def _clean_name(name: str) -> str:
    """The base name of an uploaded file (browsers may send a path)."""
    base = PureWindowsPath(PurePosixPath(str(name)).name).name.strip()
    if not base:
        raise LibraryError("The document needs a file name.")
    return base


class DocumentLibrary:
    """The local document library: a SearchBackend named "library" over SQLite FTS5."""

    name = "library"

    def __init__(self, db_path: StoreLocation | Path | str | None):
        """Open (and if needed create) the library tables in the SQLite file `db_path` (None: the environment's).

        The library is not kept in PostgreSQL yet: a PostgreSQL location raises LibraryError.
        """
        location = locate(db_path)
        if location.path is None:
            raise LibraryError(
                f"The document library is kept in the SQLite file only, not yet in PostgreSQL ({location.shown}); "
                "leave out the library search backend, or use --db PATH for a library of your own."
            )
        self.db_path = location.path
        self._lock = threading.Lock()
        self._trigram = _trigram_supported()
        try:
            with self._write() as db:
                docs = db["library_documents"]
                docs.create(
                    _DOCUMENT_COLUMNS, pk="id", not_null=set(_DOCUMENT_COLUMNS) - {"path", "note"}, if_not_exists=True
                )
                docs.create_index(["key"], unique=True, if_not_exists=True)
                chunks = db["library_chunks"]
                chunks.create(
                    {"id": int, "doc_id": str, "ord": int, "text": str, "place": str},
                    pk="id",
                    not_null={"doc_id", "ord", "text"},
                    if_not_exists=True,
                )
                _add_missing_columns(db)
                chunks.create_index(["doc_id", "ord"], if_not_exists=True)
                for statement in _fts_schema(self._trigram):
                    db.conn.execute(statement)
        except sqlite3.Error as exc:
            raise LibraryError(f"The document library in {self.db_path} could not be opened: {exc}") from exc

    # -- connections

    @contextmanager
    def _read(self) -> Iterator[sqlite_utils.Database]:
        conn = connect(self.db_path)
        try:
            yield sqlite_utils.Database(conn)
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite_utils.Database]:
        """One IMMEDIATE transaction: committed if the block succeeds, rolled back otherwise."""
        with self._lock, self._read() as db:
            db.conn.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.conn.rollback()
                raise
            db.conn.commit()

    # -- adding

    def add_file(self, path: Path | str) -> LibraryDocument:
        """Add (or replace) a file from disk; LibraryError if it is refused."""
        file = Path(path).expanduser()
        if not file.is_file():
            raise LibraryError(f"'{file}' does not exist or is not a file.")
        try:
            kind_for_name(file.name)
            check_size(file.name, file.stat().st_size)
            data = file.read_bytes()
        except OSError as exc:
            raise LibraryError(f"'{file}' could not be read: {exc.strerror or exc}.") from exc
        resolved = str(file.resolve())
        parsed = parse_document(file.name, data)
        return self._store(key=f"file:{resolved}", name=file.name, path=resolved, parsed=parsed)

    def add_bytes(self, name: str, data: bytes) -> LibraryDocument:
        """Add (or replace) an uploaded file; the kind comes from the extension and must match the content."""
        name = _clean_name(name)
        return self._store(key=f"name:{name}", name=name, path=None, parsed=parse_document(name, data))

    def add_text(self, name: str, text: str, kind: str = "txt") -> LibraryDocument:
        """Add (or replace) a text document of kind txt, md or html under `name`."""
        name = _clean_name(name)
        check_size(name, len(text.encode("utf-8")))
        return self._store(key=f"name:{name}", name=name, path=None, parsed=parse_text(name, text, kind))

    def _store(self, key: str, name: str, path: str | None, parsed: ParsedDocument) -> LibraryDocument:
        chunks = located_chunks(parsed)
        doc = LibraryDocument(
            id=stable_id("library", key),
            name=name,
            path=path,
            url=path or f"library://{name}",
            title=parsed.title,
            kind=parsed.kind,
            chars=len(parsed.text),
            chunks=len(chunks),
            added_at=utc_now(),
            note=parsed.note,
        )
        try:
            with self._write() as db:
                db.conn.execute("DELETE FROM library_chunks WHERE doc_id = ?", [doc.id])
                db.conn.execute("DELETE FROM library_documents WHERE id = ?", [doc.id])
                db["library_documents"].insert({**doc.model_dump(), "key": key})
                db["library_chunks"].insert_all(
                    (
                        {"doc_id": doc.id, "ord": i, "text": chunk, "place": place}
                        for i, (place, chunk) in enumerate(chunks)
                    ),
                    batch_size=200,
                )
        except sqlite3.Error as exc:
            raise LibraryError(f"'{name}' could not be saved in the library: {exc}") from exc
        logger.info("library: added %s (%s, %d chars, %d chunks)", doc.url, doc.kind, doc.chars, doc.chunks)
        if doc.note:
            logger.warning("library: %s: %s", name, doc.note)
        return doc

    # -- reading

    def list_documents(self) -> list[LibraryDocument]:
        """All documents, by title."""
        with self._read() as db:
            rows = db["library_documents"].rows_where(order_by="title COLLATE NOCASE, name")
            return [_document(row) for row in rows]

    def get(self, doc_id: str) -> LibraryDocument | None:
        """One document by id, or None."""
        with self._read() as db:
            rows = list(db["library_documents"].rows_where("id = ?", [doc_id]))
        return _document(rows[0]) if rows else None

    def remove(self, doc_id: str) -> bool:
        """Remove a document and its passages; True if it existed."""
        with self._write() as db:
            db.conn.execute("DELETE FROM library_chunks WHERE doc_id = ?", [doc_id])
            removed = db.conn.execute("DELETE FROM library_documents WHERE id = ?", [doc_id]).rowcount
        return removed > 0

    def count(self) -> int:
        """How many documents the library holds."""
        with self._read() as db:
            return int(db.conn.execute("SELECT count(*) FROM library_documents").fetchone()[0])

    # -- searching

    def search(self, query: str, max_results: int) -> list[Source]:
        """The best passage of each matching document, best first (bm25); SearchError on failure."""
        limit = min(int(max_results), MAX_RESULTS_PER_QUERY)
        terms = query_terms(query)
        if limit <= 0 or not terms:
            return []
        try:
            with self._read() as db:
                rows = self._search_rows(db.conn, terms, limit)
        except sqlite3.Error as exc:
            logger.warning("library search failed for %r: %r", query, exc)
            raise SearchError(self.name, f"The document library could not be searched: {exc}") from exc
        return [clip_source(located_source(row, self.name)) for row in rows]

    def passages_of(self, url: str, query: str, limit: int = MAX_PASSAGES_OF_DOCUMENT) -> list[Source]:
        """The passages of the document at `url` that match `query`, best first (bm25): what a
        branch reads next of a page whose best passage it has read already. Empty for a query in
        a script the word index does not split (CJK) or on a database error."""
        terms = query_terms(query)
        if not terms or has_cjk(" ".join(terms)):
            return []
        try:
            with self._read() as db:
                rows = db.conn.execute(
                    "SELECT d.url, d.title, c.text, c.place, bm25(library_fts) AS score FROM library_fts "
                    "JOIN library_chunks AS c ON c.id = library_fts.rowid "
                    "JOIN library_documents AS d ON d.id = c.doc_id "
                    "WHERE library_fts MATCH ? AND d.url = ? ORDER BY score LIMIT ?",
                    [word_match(terms), url.split("#", 1)[0], int(limit)],
                ).fetchall()
        except sqlite3.Error as exc:
            logger.warning("library passages of %r failed: %r", url, exc)
            return []
        return [
            clip_source(located_source({"url": u, "title": t, "text": x, "place": p, "relevance": 0.5}, self.name))
            for u, t, x, p, _ in rows
        ]

    def _search_rows(self, conn: sqlite3.Connection, terms: list[str], limit: int) -> list[dict[str, Any]]:
        if not has_cjk(" ".join(terms)):
            return self._fts_rows(conn, "library_fts", word_match(terms), limit, terms)
        if self._trigram:
            match, short = trigram_match(terms)
            rows = self._fts_rows(conn, "library_fts_trigram", match, limit, terms) if match else []
            if rows or not short:
                return rows
            return self._like_rows(conn, short, limit)
        return self._like_rows(conn, _like_terms(terms), limit)

    @staticmethod
    def _fts_rows(
        conn: sqlite3.Connection, table: str, match: str, limit: int, terms: list[str]
    ) -> list[dict[str, Any]]:
        """Best chunk per document by bm25, raised by the share of the query's terms in the document's
        title (`title_share`); relevance relative to the best hit."""
        ranked = conn.execute(
            f"SELECT c.doc_id, c.id, bm25({table}) AS score FROM {table} "
            f"JOIN library_chunks AS c ON c.id = {table}.rowid "
            f"WHERE {table} MATCH ? ORDER BY score LIMIT ?",
            [match, MAX_RANKED_CHUNKS],
        ).fetchall()
        best_chunk: dict[str, tuple[int, float]] = {}
        for doc_id, chunk_id, score in ranked:
            best_chunk.setdefault(doc_id, (chunk_id, -score))
        # at most MAX_RANKED_CHUNKS ids: within SQLite's 32,766 bound variables
        marks = ",".join("?" * len(best_chunk))
        titles = dict(conn.execute(f"SELECT id, title FROM library_documents WHERE id IN ({marks})", list(best_chunk)))
        for doc_id, (chunk_id, score) in best_chunk.items():
            boost = 1.0 + TITLE_WEIGHT * title_share(terms, titles.get(doc_id, ""))
            best_chunk[doc_id] = (chunk_id, score * boost)
        chosen = sorted(best_chunk.values(), key=lambda hit: -hit[1])[:limit]
        if not chosen:
            return []
        marks = ",".join("?" for _ in chosen)
        details = {
            chunk_id: (url, title, text, place)
            for chunk_id, url, title, text, place in conn.execute(
                "SELECT c.id, d.url, d.title, c.text, c.place FROM library_chunks AS c "
                f"JOIN library_documents AS d ON d.id = c.doc_id WHERE c.id IN ({marks})",
                [chunk_id for chunk_id, _ in chosen],
            )
        }
        top = max(score for _, score in chosen) or 1.0
        return [
            {
                "url": details[chunk_id][0],
                "title": details[chunk_id][1],
                "text": details[chunk_id][2],
                "place": details[chunk_id][3],
                "relevance": round(max(0.01, min(1.0, score / top)), 3),
            }
            for chunk_id, score in chosen
            if chunk_id in details
        ]

    @staticmethod
    def _like_rows(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[dict[str, Any]]:
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
        params = [f"%{_like_escape(t)}%" for t in terms]
        found = conn.execute(sql, [*params, limit]).fetchall()
        return [
            {"url": url, "title": title, "text": text, "place": place, "relevance": round(hits / len(terms), 3)}
            for url, title, text, place, hits in found
        ]
