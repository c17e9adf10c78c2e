"""A fact moved between numbered variants of one thing: "In SQLite FTS3 and FTS4, documents are
indexed as fixed-size blobs", from fts5.html's "The full-text index maintained by FTS5 is stored as
a series of fixed-size blobs".

FTS3, FTS4 and FTS5 (or HTTP1 and HTTP2, int4 and int8) share their letters, so the words around
them match and the subject checks, which know only the question's names, see nothing. When the
quoted sentence holding most of a clause names one variant of a family and the clause names only
other variants of it, the clause gives that sentence's fact to a variant it is not about.
"""

from __future__ import annotations

import re

from research_core.text.support import SUPPORT_BAR, support_share
from research_core.text.terms import distinctive_terms

# letters, then a number: FTS5, HTTP2, int8, utf16
_NUMBERED = re.compile(r"^([A-Za-z]{2,})(\d+)$")


def numbered_variants(text: str) -> dict[str, set[str]]:
    """{family letters, lower-cased: the variants `text` names}: "FTS3 and FTS4" gives {"fts": {"fts3", "fts4"}}."""
    found: dict[str, set[str]] = {}
    for term in distinctive_terms(text):
        match = _NUMBERED.match(term)
        if match:
            found.setdefault(match.group(1).lower(), set()).add(term.lower())
    return found


def sibling_variant(clause: str, sentences: list[str]) -> str | None:
    """Why `clause` is refused, or None: the quoted sentence holding most of its words (at least
    `SUPPORT_BAR`) names a numbered variant of a family whose other variants the clause names
    instead (and that sentence names none of the clause's)."""
    mine = numbered_variants(clause)
    if not mine or not sentences:
        return None
    share, best = max((support_share(clause, sentence), sentence) for sentence in sentences)
    if share < SUPPORT_BAR:
        return None
    for family, theirs in numbered_variants(best).items():
        ours = mine.get(family, set())
        if ours and not ours & theirs:
            return f"its source says this of {min(theirs).upper()}, not {min(ours).upper()}"
    return None
