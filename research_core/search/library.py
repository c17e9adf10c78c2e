"""DocumentLibrary: the user's own documents, searched with SQLite FTS5 or PostgreSQL full-text search.

Documents (.txt, .md, .html/.htm, .pdf, .docx, .pptx, .xlsx, .csv) are converted to plain text and
split into passages by `research_core.documents.parsing`, stored in the tables of
`library_tables`, and indexed by the engine's own search: FTS5 on SQLite (`library_fts`: words
with porter stemming, trigrams for Chinese, Japanese and Korean), a `tsvector` with a GIN index on
PostgreSQL (`library_postgres`). Both turn ranked passages into hits by one rule
(`library_ranking`).

Each passage keeps its place in the document (`research_core.documents`): the page of a PDF, the
slide of a deck, the sheet and rows of a workbook, the heading of a Word section. A search hit
carries it as its URL's fragment (`report.pdf#page=12`) and its title names it ("Report, p. 12").
A file that is read only in part (a limit reached, pages without text) is indexed with a `note`.

Everything lives in Arbor's database (the SQLite file or PostgreSQL), in tables prefixed
`library_`. Every operation takes its own connection, so one library can serve several threads;
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

from pydantic import BaseModel, Field
from sqlalchemy import Connection, delete, func, insert, select
from sqlalchemy.exc import SQLAlchemyError

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
from research_core.search.library_fts import fts_schema, sqlite_passages, sqlite_search, trigram_supported
from research_core.search.library_postgres import POSTGRES_SEARCH_SCHEMA, postgres_passages, postgres_search
from research_core.search.library_tables import chunks, create_or_upgrade, documents
from research_core.search.meaning_rank import POOL, by_meaning
from research_core.storage.engines import engine_for
from research_core.storage.location import StoreLocation, locate
from research_core.storage.schema import schema_change
from research_core.text.fts_query import has_cjk, query_terms

logger = logging.getLogger(__name__)

# passages of one document offered to a branch that has read its best one
MAX_PASSAGES_OF_DOCUMENT = 8
INSERT_BATCH = 200


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


def _clean_name(name: str) -> str:
    """The base name of an uploaded file (browsers may send a path)."""
    base = PureWindowsPath(PurePosixPath(str(name)).name).name.strip()
    if not base:
        raise LibraryError("The document needs a file name.")
    return base


class DocumentLibrary:
    """The local document library: a SearchBackend named "library" over the database's full-text search."""

    name = "library"

    def __init__(self, db_path: StoreLocation | Path | str | None):
        """Open (and if needed create) the library tables in the database `db_path` (None: the environment's).

        `db_path` is a SQLite path, a PostgreSQL URL or a `StoreLocation`; LibraryError if it cannot be opened.
        """
        self.location = locate(db_path)
        self.db_path = self.location.path
        self._lock = threading.Lock()
        self._postgres = self.location.is_postgres
        self._trigram = not self._postgres and trigram_supported()
        self._engine = engine_for(self.location)
        try:
            with schema_change(self._engine) as conn:
                create_or_upgrade(conn)
                for statement in POSTGRES_SEARCH_SCHEMA if self._postgres else fts_schema(self._trigram):
                    conn.exec_driver_sql(statement)
        except SQLAlchemyError as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise LibraryError(f"The document library in {self.location} could not be opened: {reason}") from None

    # -- connections

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            yield conn

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One transaction holding the write lock: committed if the block succeeds, rolled back otherwise."""
        with self._lock, self._engine.connect() as conn:
            conn = conn.execution_options(immediate=True)
            with conn.begin():
                yield conn

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
        passages = located_chunks(parsed)
        doc = LibraryDocument(
            id=stable_id("library", key),
            name=name,
            path=path,
            url=path or f"library://{name}",
            title=parsed.title,
            kind=parsed.kind,
            chars=len(parsed.text),
            chunks=len(passages),
            added_at=utc_now(),
            note=parsed.note,
        )
        rows = [{"doc_id": doc.id, "ord": i, "text": text, "place": place} for i, (place, text) in enumerate(passages)]
        try:
            with self._write() as conn:
                conn.execute(delete(chunks).where(chunks.c.doc_id == doc.id))
                conn.execute(delete(documents).where(documents.c.id == doc.id))
                conn.execute(insert(documents).values(**doc.model_dump(), key=key))
                for start in range(0, len(rows), INSERT_BATCH):
                    self._insert_passages(conn, rows[start : start + INSERT_BATCH])
        except SQLAlchemyError as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise LibraryError(f"'{name}' could not be saved in the library: {reason}") from None
        logger.info("library: added %s (%s, %d chars, %d chunks)", doc.url, doc.kind, doc.chars, doc.chunks)
        if doc.note:
            logger.warning("library: %s: %s", name, doc.note)
        return doc

    @staticmethod
    def _insert_passages(conn: Connection, rows: list[dict[str, Any]]) -> None:
        conn.execute(insert(chunks), rows)

    # -- reading

    def list_documents(self) -> list[LibraryDocument]:
        """All documents, by title (case aside), then name."""
        query = select(*[documents.c[f] for f in LibraryDocument.model_fields])
        with self._read() as conn:
            rows = conn.execute(query.order_by(func.lower(documents.c.title), documents.c.name)).mappings().all()
        return [_document(dict(row)) for row in rows]

    def get(self, doc_id: str) -> LibraryDocument | None:
        """One document by id, or None."""
        query = select(*[documents.c[f] for f in LibraryDocument.model_fields]).where(documents.c.id == doc_id)
        with self._read() as conn:
            row = conn.execute(query).mappings().first()
        return _document(dict(row)) if row else None

    def remove(self, doc_id: str) -> bool:
        """Remove a document and its passages; True if it existed."""
        with self._write() as conn:
            conn.execute(delete(chunks).where(chunks.c.doc_id == doc_id))
            removed = conn.execute(delete(documents).where(documents.c.id == doc_id)).rowcount
        return removed > 0

    def count(self) -> int:
        """How many documents the library holds."""
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(documents)).scalar() or 0)

    # -- searching

    def search(self, query: str, max_results: int) -> list[Source]:
        """The best passage of each matching document, best first: the word index proposes, meaning
        re-ranks (`search.meaning_rank`); SearchError on failure."""
        limit = min(int(max_results), MAX_RESULTS_PER_QUERY)
        terms = query_terms(query)
        if limit <= 0 or not terms:
            return []
        try:
            with self._read() as conn:
                if self._postgres:
                    rows = postgres_search(conn, terms, max(limit, POOL))
                else:
                    rows = sqlite_search(conn, terms, max(limit, POOL), trigram=self._trigram)
        except (SQLAlchemyError, sqlite3.Error) as exc:
            logger.warning("library search failed for %r: %r", query, exc)
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise SearchError(self.name, f"The document library could not be searched: {reason}") from exc
        return [clip_source(located_source(row, self.name)) for row in by_meaning(query, rows, limit)]

    def passages_of(self, url: str, query: str, limit: int = MAX_PASSAGES_OF_DOCUMENT) -> list[Source]:
        """The passages of the document at `url` that match `query`, best first: what a branch
        reads next of a page whose best passage it has read already. Empty for a query in a
        script the word index does not split (CJK) or on a database error."""
        terms = query_terms(query)
        if not terms or has_cjk(" ".join(terms)):
            return []
        page = url.split("#", 1)[0]
        try:
            with self._read() as conn:
                passages = postgres_passages if self._postgres else sqlite_passages
                rows = passages(conn, terms, page, limit)
        except (SQLAlchemyError, sqlite3.Error) as exc:
            logger.warning("library passages of %r failed: %r", url, exc)
            return []
        return [
            clip_source(located_source({"url": u, "title": t, "text": x, "place": p, "relevance": 0.5}, self.name))
            for u, t, x, p in rows
        ]
