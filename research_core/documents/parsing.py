"""A document's bytes or text turned into plain text and passages, ready to index.

Documents (.txt, .md, .html/.htm, .pdf, .docx, .pptx, .xlsx, .csv) are refused unless their content
matches their extension, converted to plain text (PDF, Word, PowerPoint, Excel and CSV into located
segments by `research_core.documents.reading`), and split into passages of at most CHUNK_CHARS
characters on paragraph boundaries. A refusal is a LibraryError of one line that says what to do.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from pydantic import BaseModel, Field

from research_core.documents.chunks import CHUNK_CHARS, section_passages, split_chunks
from research_core.documents.html_text import html_blocks
from research_core.documents.limits import DocumentError
from research_core.documents.page_contents import without_contents
from research_core.documents.places import Segment
from research_core.documents.reading import read_document
from research_core.text.sanitize import BIDI_CONTROLS

MAX_FILE_BYTES = 20 * 1024 * 1024
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
# Control characters (C0 but tab and newlines, DEL, C1) and the invisible bidi controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}=+\s*$")
_FRONT_MATTER_TITLE = re.compile(r"^title\s*:\s*(.+?)\s*$", re.IGNORECASE)
_CHARSET = re.compile(rb"""charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


class LibraryError(Exception):
    """A document was refused or the library could not be changed; the message says why and what to do."""


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


def check_size(name: str, size: int) -> None:
    """Refuse an empty file or one over `MAX_FILE_BYTES` (LibraryError saying what to do)."""
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


def parse_text(name: str, text: str, kind: str) -> ParsedDocument:
    """Convert the text of a txt, md or html document; LibraryError if there is nothing to index."""
    if kind not in TEXT_KINDS:
        raise LibraryError(f"'{name}': kind must be one of {', '.join(TEXT_KINDS)}, not {kind!r}.")
    if "\x00" in text:
        raise LibraryError(f"'{name}' contains binary data, not text.")
    title = ""
    segments: list[Segment] = []
    if kind == "html":
        title, blocks = html_blocks(text)
        passages = section_passages(without_contents(blocks))
        sections = [clean for passage in passages if (clean := normalize_text(passage))]
        segments = [Segment(text=passage) for passage in sections]
        text = "\n\n".join(sections)
    text = normalize_text(text)
    if not text:
        raise LibraryError(f"'{name}' has no text to add.")
    if kind == "md":
        title = markdown_title(text)
    elif kind == "txt":
        title = _first_line(text)
    return ParsedDocument(
        kind=kind, title=_clean_title(title) or _clean_title(_stem(name)), text=text, segments=segments
    )


def _clean_title(title: str) -> str:
    """A title on one line without control or bidi characters."""
    return " ".join(_CONTROL.sub("", title).split())


def parse_document(name: str, data: bytes) -> ParsedDocument:
    """Convert a file's bytes to text; the extension gives the kind and the content must match it.

    PDF, Word, PowerPoint, Excel and CSV files are read into located segments within the reading
    limits (`research_core.documents`); a file that cannot be read is a LibraryError of one line.
    """
    kind = kind_for_name(name)
    check_size(name, len(data))
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
