"""A document's text cut into passages: what the library indexes and a search returns.

Plain text is cut at paragraph boundaries into passages of at most `CHUNK_CHARS`. A page with
headings (HTML) is cut into sections first: a passage starts at a heading and never runs into the
next section unless both fit whole, and the later passages of a long section open with its heading.
A reference manual's entry ("fs.createReadStream(path[, options])", "ProxyPass Directive") then is
one passage under its own name: a search for the name finds the entry's text, not the end of the
entry before it, and a reader (or a model) shown the passage sees what it is about.
"""

from __future__ import annotations

import re

from research_core.text.entry_terms import entry_term

# A passage is a library hit's snippet: at most `research_core.search.base.MAX_SNIPPET_CHARS` (1500).
CHUNK_CHARS = 1500
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*\s+|[。！？]\s*")
# a heading longer than this is a paragraph set in a heading's type: later passages do not repeat it
MAX_HEADING_CHARS = 200


def _before_term(window: str, cut: int, minimum: int) -> int:
    """`cut`, or the start of the entry term ending just before it (`text.entry_terms`): a term goes
    with the description after it, not at the end of the passage before."""
    start = window.rfind("\n", 0, max(0, cut - 1)) + 1
    if start >= minimum and entry_term(window[start:cut].strip()):
        return start
    return cut


def _break_at(window: str, minimum: int) -> int:
    """Where to end a chunk inside `window`: a paragraph, a line, a sentence, a space; else its end.
    A reference entry's term stays with its description (`_before_term`)."""
    for finder in (
        lambda w: w.rfind("\n\n"),
        lambda w: w.rfind("\n"),
        lambda w: max((m.end() for m in _SENTENCE_END.finditer(w)), default=-1),
        lambda w: max(w.rfind(" "), w.rfind("\t")),
    ):
        position = finder(window)
        if position >= minimum:
            return _before_term(window, position, minimum)
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


def _sections(blocks: list[tuple[bool, str]]) -> list[tuple[str, list[str]]]:
    """(heading, body blocks) of each section; text before the first heading has the heading ""."""
    sections: list[tuple[str, list[str]]] = []
    for is_heading, text in blocks:
        if is_heading:
            sections.append((text, []))
        elif sections:
            sections[-1][1].append(text)
        else:
            sections.append(("", [text]))
    return sections


def _section_chunks(heading: str, body: list[str], max_chars: int) -> list[str]:
    """One section's passages: whole when it fits, else cut, each later passage opening with the heading."""
    text = "\n\n".join(part for part in (heading, *body) if part)
    if len(text) <= max_chars:
        return [text]
    if not heading or len(heading) > MAX_HEADING_CHARS:
        return split_chunks(text, max_chars)
    first, *rest = split_chunks(text, max_chars)
    room = max_chars - len(heading) - 2
    remainder = "\n\n".join(rest)
    return [first, *(f"{heading}\n\n{piece}" for piece in split_chunks(remainder, room))]


def section_passages(blocks: list[tuple[bool, str]], max_chars: int = CHUNK_CHARS) -> list[str]:
    """Passages of a text given as (is a heading, text) blocks: sections packed whole while they fit
    in `max_chars` together, a longer section cut with its heading at the top of every piece."""
    passages: list[str] = []
    current = ""
    for heading, body in _sections(blocks):
        pieces = _section_chunks(heading, body, max_chars)
        if len(pieces) == 1 and current and len(current) + 2 + len(pieces[0]) <= max_chars:
            current = f"{current}\n\n{pieces[0]}"
            continue
        if current:
            passages.append(current)
        if len(pieces) == 1:
            current = pieces[0]
        else:
            passages += pieces
            current = ""
    if current:
        passages.append(current)
    return passages
