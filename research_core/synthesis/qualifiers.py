"""Qualifiers a retelling must keep: a sentence that retells a quoted sentence keeps its hedges.

"Usually, search engines show fragments of the document" is not "Search engines show fragments of
the document"; "ProxyPassReverse is most often required" is not "is required"; "internally only
three distinct isolation levels are implemented" is not "PostgreSQL offers four". The model drops
these words because they look like padding, and the shared words hide it from every overlap
measure. So a clause that retells one quoted sentence (`text.support.retold_sentence`) and leaves
out one of that sentence's qualifiers is refused on its wording: the engine then puts the quoted
sentence itself in its place, hedge and all, or removes it.
"""

from __future__ import annotations

import re

from research_core.text.support import retold_sentence, stems

# the words that limit how far a statement holds: how often, how surely, how much of it
_QUALIFIER = re.compile(
    r"\b(most often|in most cases|in some cases|not always|usually|often|ordinarily|typically|generally|"
    r"normally|sometimes|mostly|rarely|may|might|only)\b",
    re.IGNORECASE,
)
# a qualifier limits the words right after it ("usually desirable", "only three distinct levels"):
# the clause retells that part when it holds this many of the next QUALIFIED_WORDS words' stems
QUALIFIED_WORDS = 4
QUALIFIED_HELD = 2


def qualifiers(text: str) -> list[str]:
    """The qualifiers `text` uses, lower-cased, in order."""
    return [q.lower() for q in _QUALIFIER.findall(text)]


def dropped_qualifier(clause: str, sentences: list[str]) -> str | None:
    """Why `clause` is refused, or None: it retells one of the quoted `sentences` and drops a
    qualifier that sentence has where it retells what the qualifier limits ("drops 'usually' from
    its quote"). A qualifier in a part of the sentence the clause does not retell does not count."""
    best = retold_sentence(clause, sentences)
    if best is None:
        return None
    kept = set(qualifiers(clause))
    mine = stems(clause)
    for match in _QUALIFIER.finditer(best):
        word = match.group(1).lower()
        if word in kept or any(word in k or k in word for k in kept):
            continue
        limited = stems(" ".join(best[match.end() :].split()[:QUALIFIED_WORDS]))
        if len(limited & mine) >= min(QUALIFIED_HELD, len(limited)) and limited:
            return f"drops '{word}' from its quote"
    return None
