"""DocumentLibrary: the user's own documents, searched with SQLite FTS5.

Documents (.txt, .md, .html/.htm, .pdf, .docx, .pptx, .xlsx, .csv) are converted to plain text,
split into passages of at most CHUNK_CHARS characters on paragraph boundaries, and indexed twice:

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
import re
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import sqlite_utils
from pydantic import BaseModel, Field

from research_core.db import connect
from research_core.documents.limits import DocumentError
from research_core.documents.places import Segment, place_from_fragment
from research_core.documents.reading import read_document
from research_core.output.sanitize import BIDI_CONTROLS
from research_core.schemas import Source, stable_id, utc_now
from research_core.search.base import MAX_RESULTS_PER_QUERY, MAX_SNIPPET_CHARS, SearchError, clip_source

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 20 * 1024 * 1024
CHUNK_CHARS = min(1500, MAX_SNIPPET_CHARS)
# passages of one document offered to a branch that has read its best one
MAX_PASSAGES_OF_DOCUMENT = 8
MAX_QUERY_TERMS = 32
# A title naming every query term raises a document's score by half: bm25 over passages alone ranks
# a long page that repeats the words above the page they are the title of. (On the benchmark's 18
# questions over 2,465 manual pages, 0.5 raised the aspects found in the top 5 from 54 to 55 of 66
# and kept results from the right manual at 87 of 90; 1.0 let other manuals' titles in: 83 of 90.)
TITLE_WEIGHT = 0.5
MAX_RANKED_CHUNKS = 2000  # passages ranked per query before keeping the best one of each document
MAX_TITLE_LINE = 120

EXTENSION_KINDS = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".csv": "csv",
}
TEXT_KINDS = ("txt", "md", "html")
STOPWORDS = frozenset(
    {
        "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
        "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on",
        "or", "our", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
        "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with",
        "you", "your",
    }
)  # fmt: skip
SUPPORTED_EXTENSIONS = ".txt, .md, .html, .htm, .pdf, .docx, .pptx, .xlsx, .csv"

# Magic numbers of binary formats people drop into a library by mistake.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive (or a Word, Excel or EPUB file)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file"),
    (b"\x7fELF", "a program"),
    (b"{\\rtf", "an RTF document"),
)

_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]"
)
_WORD = re.compile(r"\w+")
# Control characters (C0 but tab and newlines, DEL, C1) and the invisible bidi controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+|[。！？]\s*")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}=+\s*$")
_FRONT_MATTER_TITLE = re.compile(r"^title\s*:\s*(.+?)\s*$", re.IGNORECASE)
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


class LibraryError(Exception):
    """A document was refused or the library could not be changed; the message says why and what to do."""


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


class ParsedDocument(BaseModel):
    """A document converted to plain text, ready to index; `segments` are its located parts, if it has any."""

    kind: str
    title: str
    text: str
    segments: list[Segment] = Field(default_factory=list)
    note: str = ""


# ---- reading documents -----------------------------------------------------------------


def kind_for_name(name: str) -> str:
    """The document kind for a file name, from its extension; LibraryError if unsupported."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in EXTENSION_KINDS:
        return EXTENSION_KINDS[suffix]
    what = f"file type '{suffix}'" if suffix else "file without an extension"
    raise LibraryError(
        f"'{name}' is an unsupported {what}. Supported: {SUPPORTED_EXTENSIONS}. "
        "Convert it to PDF, Markdown or plain text first."
    )


def _check_size(name: str, size: int) -> None:
    if size == 0:
        raise LibraryError(f"'{name}' is empty; there is nothing to add.")
    if size > MAX_FILE_BYTES:
        raise LibraryError(
            f"'{name}' is {size / 1024 / 1024:.1f} MB; the library takes files up to "
            f"{MAX_FILE_BYTES // 1024 // 1024} MB. Split it or keep only the part you need."
        )


def _signature(data: bytes) -> str | None:
    for magic, description in _SIGNATURES:
        if data.startswith(magic):
            return description
    return None


def _decode(name: str, data: bytes, kind: str) -> str:
    """Decode a text file (UTF-8, or UTF-16 with a BOM); refuse binary content."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise LibraryError(f"'{name}' is not valid UTF-16 text; save it as UTF-8 and add it again.") from exc
    found = _signature(data)
    if found or b"\x00" in data:
        described = found or "binary data"
        hint = " Rename it to .pdf." if found == "a PDF document" else ""
        raise LibraryError(
            f"'{name}' looks like {described}, not a .{kind} text file: its content does not match its extension.{hint}"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if kind == "html" and (declared := _CHARSET.search(data[:4096])):
            try:
                return data.decode(declared.group(1).decode("ascii"))
            except (LookupError, UnicodeDecodeError):
                pass
        raise LibraryError(
            f"'{name}' is not UTF-8 text (or is binary data); save it as UTF-8 and add it again."
        ) from exc


def normalize_text(text: str) -> str:
    """Unify newlines, drop control characters and trailing spaces, collapse blank lines."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    text = _CONTROL.sub("", text)
    lines = [line.rstrip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _first_line(text: str) -> str:
    for line in text.split("\n"):
        line = line.strip()
        if line:
            return line if len(line) <= MAX_TITLE_LINE else ""
    return ""


def _stem(name: str) -> str:
    return PurePosixPath(name).stem or name


def markdown_title(text: str) -> str:
    """The title of a Markdown text: front matter `title:`, else the first heading, else ""."""
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        for line in lines[1:40]:
            if line.strip() in ("---", "..."):
                break
            if match := _FRONT_MATTER_TITLE.match(line):
                return match.group(1).strip().strip("\"'")
    for i, line in enumerate(lines):
        if match := _HEADING.match(line):
            return match.group(1).strip()
        if line.strip() and i + 1 < len(lines) and _SETEXT.match(lines[i + 1]):
            return line.strip()
    return ""


class _HTMLText(HTMLParser):
    """Collects the visible text and the <title> of an HTML page, navigation apart.

    Navigation (`<nav>`, or an element with role navigation or search) is collected on its own and
    left out of the text, unless that leaves under `MIN_MAIN_CHARS` characters (an unclosed `<nav>`
    swallowing the rest of the page, or a page that is all links).
    """

    SKIP = frozenset({"script", "style", "noscript", "template", "svg"})
    NAVIGATION_ROLES = frozenset({"navigation", "search"})
    MIN_MAIN_CHARS = 200  # less text than this outside navigation: keep the navigation's text too
    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})
    BLOCKS = frozenset(
        {
            "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
            "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
            "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
        }
    )  # fmt: skip
    BREAK = "\x1e"

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.navigation_parts: list[str] = []
        self._skip = 0
        self._nav_tag: str | None = None
        self._nav_depth = 0
        self._in_title = False
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = not self._skip and not self.title_parts
        elif tag in self.SKIP:
            self._skip += 1
        elif tag == "h1":
            self._in_h1 = True
        self._enter_navigation(tag, attrs)
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)

    def _enter_navigation(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._nav_tag is not None:
            self._nav_depth += tag == self._nav_tag
        elif tag not in self.VOID and (tag == "nav" or dict(attrs).get("role") in self.NAVIGATION_ROLES):
            self._nav_tag, self._nav_depth = tag, 1

    def _out(self) -> list[str]:
        return self.navigation_parts if self._nav_tag is not None else self.parts

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self.SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "h1":
            self._in_h1 = False
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)
        if tag == self._nav_tag:
            self._nav_depth -= 1
            if self._nav_depth <= 0:
                self._nav_tag = None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BLOCKS:
            self._out().append(self.BREAK)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
            return
        if self._skip:
            return
        data = data.replace(self.BREAK, " ")
        self._out().append(data)
        if self._in_h1:
            self.h1_parts.append(data)

    def text(self) -> str:
        main = self._joined(self.parts)
        navigation = self._joined(self.navigation_parts)
        if navigation and len(main) < self.MIN_MAIN_CHARS:
            return self._joined([*self.parts, self.BREAK, *self.navigation_parts])
        return main

    def _joined(self, parts: list[str]) -> str:
        blocks = (" ".join(block.split()) for block in "".join(parts).split(self.BREAK))
        return "\n\n".join(block for block in blocks if block)

    def title(self) -> str:
        return " ".join("".join(self.title_parts).split()) or " ".join("".join(self.h1_parts).split())


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML page; scripts and styles are dropped."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return parser.title(), parser.text()


def parse_text(name: str, text: str, kind: str) -> ParsedDocument:
    """Convert the text of a txt, md or html document; LibraryError if there is nothing to index."""
    if kind not in TEXT_KINDS:
        raise LibraryError(f"'{name}': kind must be one of {', '.join(TEXT_KINDS)}, not {kind!r}.")
    if "\x00" in text:
        raise LibraryError(f"'{name}' contains binary data, not text.")
    title = ""
    if kind == "html":
        title, text = html_to_text(text)
    text = normalize_text(text)
    if not text:
        raise LibraryError(f"'{name}' has no text to add.")
    if kind == "md":
        title = markdown_title(text)
    elif kind == "txt":
        title = _first_line(text)
    return ParsedDocument(kind=kind, title=_clean_title(title) or _clean_title(_stem(name)), text=text)


def _clean_title(title: str) -> str:
    """A title on one line without control or bidi characters."""
    return " ".join(_CONTROL.sub("", title).split())


def parse_document(name: str, data: bytes) -> ParsedDocument:
    """Convert a file's bytes to text; the extension gives the kind and the content must match it.

    PDF, Word, PowerPoint, Excel and CSV files are read into located segments within the reading
    limits (`research_core.documents`); a file that cannot be read is a LibraryError of one line.
    """
    kind = kind_for_name(name)
    _check_size(name, len(data))
    if kind == "pdf" and b"%PDF-" not in data[:1024]:
        found = _signature(data)
        described = f"it looks like {found}" if found else "it has no PDF header"
        raise LibraryError(f"'{name}' is not a PDF: {described}. Check the file or its extension.")
    if kind in TEXT_KINDS:
        return parse_text(name, _decode(name, data, kind), kind)
    text = _decode(name, data, kind) if kind == "csv" else None
    try:
        read = read_document(name, kind, data if text is None else text, CHUNK_CHARS)
    except DocumentError as exc:
        raise LibraryError(str(exc)) from None
    segments = [Segment(place=seg.place, text=clean) for seg in read.segments if (clean := normalize_text(seg.text))]
    full = "\n\n".join(seg.text for seg in segments)
    if not full:
        raise LibraryError(f"'{name}' has no text to add{f' ({read.note})' if read.note else ''}.")
    title = _clean_title(read.title) or (_first_line(full) if kind == "pdf" else "") or _clean_title(_stem(name))
    return ParsedDocument(kind=kind, title=title, text=full, segments=segments, note=read.note)


# ---- chunking --------------------------------------------------------------------------


def _break_at(window: str, minimum: int) -> int:
    """Where to end a chunk inside `window`: a paragraph, a line, a sentence, a space; else its end."""
    for finder in (
        lambda w: w.rfind("\n\n"),
        lambda w: w.rfind("\n"),
        lambda w: max((m.end() for m in _SENTENCE_END.finditer(w)), default=-1),
        lambda w: max(w.rfind(" "), w.rfind("\t")),
    ):
        position = finder(window)
        if position >= minimum:
            return position
    return len(window)


def split_chunks(text: str, max_chars: int = CHUNK_CHARS) -> list[str]:
    """Split text into passages of at most `max_chars`, preferring paragraph boundaries."""
    text = text.strip()
    chunks: list[str] = []
    minimum = max(1, max_chars // 3)
    while len(text) > max_chars:
        cut = _break_at(text[:max_chars], minimum)
        chunk, text = text[:cut].strip(), text[cut:].strip()
        if chunk:
            chunks.append(chunk)
    if text:
        chunks.append(text)
    return chunks


def located_chunks(parsed: ParsedDocument) -> list[tuple[str | None, str]]:
    """(place fragment or None, passage) of a parsed document: its segments' passages, each at its
    segment's place, or the passages of its whole text for a document without segments."""
    if not parsed.segments:
        return [(None, chunk) for chunk in split_chunks(parsed.text)]
    return [
        (segment.place.fragment() if segment.place else None, chunk)
        for segment in parsed.segments
        for chunk in split_chunks(segment.text)
    ]


def located_source(row: dict[str, Any], backend: str) -> Source:
    """A search hit as a Source: a passage with a place gets `url#fragment` and the place's label in its title."""
    place = place_from_fragment(row["place"]) if row.get("place") else None
    if place is None:
        return Source.make(row["url"], row["title"], row["text"], row["relevance"], backend)
    url = f"{row['url']}#{place.fragment()}"
    return Source.make(url, f"{row['title']}, {place.label()}", row["text"], row["relevance"], backend)


def _document(row: dict[str, Any]) -> LibraryDocument:
    return LibraryDocument(**{**row, "note": row.get("note") or ""})


# ---- queries ---------------------------------------------------------------------------


def query_terms(query: str) -> list[str]:
    """The words of a query, lower-cased, de-duplicated, in order (FTS syntax characters drop out).

    Common English words are left out when the query has others, so that OR-ing the terms
    does not match every passage containing "the".
    """
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        seen.setdefault(word, None)
    terms = list(seen)
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_QUERY_TERMS]


def has_cjk(text: str) -> bool:
    """True if the text contains Chinese, Japanese or Korean characters."""
    return _CJK.search(text) is not None


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def title_share(terms: list[str], title: str) -> float:
    """The share of `terms` that a word of `title` starts with (or starts), so "logging" meets
    "Logging" and "locks" meets "locking": a page titled with the query's words is about it."""
    words = [w for w in _WORD.findall(title.lower()) if len(w) > 2]
    if not terms or not words:
        return 0.0
    stems = [t[: max(4, len(t) - 3)] for t in terms]
    return sum(any(w.startswith(stem) or stem.startswith(w) for w in words) for stem in stems) / len(terms)


def word_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression: every term quoted (so it is a plain string), OR-ed."""
    return " OR ".join(_quote(t) for t in terms)


def trigram_match(terms: list[str]) -> tuple[str, list[str]]:
    """(MATCH expression for the trigram index, terms too short for it).

    A CJK term (often a whole phrase, there being no spaces) becomes its overlapping trigrams,
    so a passage matches on the parts it shares; other terms of 3+ characters match as
    substrings.
    """
    grams: dict[str, None] = {}
    short: list[str] = []
    for term in terms:
        if len(term) < 3:
            short.append(term)
        elif has_cjk(term):
            for i in range(len(term) - 2):
                grams.setdefault(term[i : i + 3], None)
        else:
            grams.setdefault(term, None)
    return " OR ".join(_quote(g) for g in list(grams)[: MAX_QUERY_TERMS * 2]), short


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

    def __init__(self, db_path: Path | str):
        """Open (and if needed create) the library tables in the SQLite file `db_path`."""
        self.db_path = Path(db_path)
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
            _check_size(file.name, file.stat().st_size)
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
        _check_size(name, len(text.encode("utf-8")))
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
