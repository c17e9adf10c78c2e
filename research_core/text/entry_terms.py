"""A reference entry's term: the name a manual sets on a line of its own above its description.

PostgreSQL's "autovacuum_vacuum_scale_factor (floating point)", Python's "class zoneinfo.ZoneInfo(key)¶"
and Node's "--max-old-space-size=SIZE (in megabytes)#" head the paragraph that describes them; the
paragraph itself often names another entry ("Specifies a fraction of the table size to add to
autovacuum_vacuum_threshold"). Read without its term, the description is given to the name it
mentions. So a passage is never cut between a term and its description (`documents.chunks`), and a
shown sentence carries its term (`research.quotes`).
"""

from __future__ import annotations

import re

from research_core.text.terms import code_names

# a reference entry's term on a line of its own, above its description: "autovacuum_vacuum_scale_factor
# (floating point)", "class zoneinfo.ZoneInfo(key)¶", "--max-old-space-size=SIZE (in megabytes)#"
_TERM_HEAD = (
    r"^(?:(?:class|exception|function|method|attribute|property|data|static|abstract|async)\s+)*"
    r"(?P<name>--?[a-z][\w-]*(?:=\S+)?|[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*(?:\([^()]*\))?)"
    r"(?:\s*(?:\([\w ,.-]{1,40}\)|<[\w |.]{1,40}>))?"
)
_TERM = re.compile(_TERM_HEAD + r"\s*[¶#]?$")
MAX_TERM_WORDS = 6
# one lowercase word with its anchor link on a line of its own: Python's "rowcount¶", "lastrowid¶". A
# manual's headings start with a capital ("Cursor objects¶"), so only an entry's name looks like this
_ANCHORED_NAME = re.compile(r"^[a-z][a-z0-9]*$")


def entry_term(piece: str) -> str | None:
    """The term `piece` is when it names a function, option or parameter on a line of its own, its anchor
    link dropped; None for anything else. Only a name written as code counts (`text.terms.code_names`),
    so a plain heading ("Introduction") is not a term, except one lowercase word carrying its anchor
    link ("rowcount¶"), which only an entry's name is."""
    term = piece.rstrip("¶#").rstrip()
    match = _TERM.match(piece)
    if not match or len(term.split()) > MAX_TERM_WORDS:
        return None
    name = match.group("name")
    return term if _names_code(name) or (term != piece.strip() and _ANCHORED_NAME.match(name)) else None


def _names_code(name: str) -> bool:
    """Whether a term's name is an option ("--max-old-space-size") or written as code (`code_names`)."""
    return name.startswith("-") or bool(code_names(name))


# a shown sentence that opens with its entry's term (`research.quotes` joins them): the term, then
# the description's first word in capitals
_LEADING = re.compile(_TERM_HEAD + r"\s+(?=[A-Z])")


def leading_term(sentence: str) -> str | None:
    """The name of the entry `sentence` describes when it opens with that entry's term
    ("autovacuum_vacuum_scale_factor (floating point) Specifies ..." -> autovacuum_vacuum_scale_factor),
    without its argument list; None otherwise."""
    match = _LEADING.match(sentence)
    if not match:
        return None
    name = match.group("name")
    return name.split("(", 1)[0].split("=", 1)[0] if _names_code(name) else None


def same_name(a: str, b: str) -> bool:
    """Whether two spellings name one thing: "zoneinfo.ZoneInfo" and "ZoneInfo()", "--max-old-space-size"
    and "max-old-space-size" (the last dotted part, without arguments, dashes or case)."""

    def core(name: str) -> str:
        return name.split("(", 1)[0].split("=", 1)[0].rsplit(".", 1)[-1].strip("-`*").lower()

    return core(a) == core(b)
