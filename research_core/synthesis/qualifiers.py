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
_WORD = re.compile(r"[\w'-]+")


def qualifiers(text: str) -> list[str]:
    """The qualifiers `text` uses, lower-cased, in order."""
    return [q.lower() for q in _QUALIFIER.findall(text)]


def _verbatim_span(clause: str, sentence: str) -> tuple[int, int] | None:
    """Where `clause` occurs word for word in `sentence` (case and punctuation aside), as the
    character span of those words in `sentence`; None when it does not."""
    words = [w.lower() for w in _WORD.findall(clause)]
    found = list(_WORD.finditer(sentence))
    if not words or len(words) > len(found):
        return None
    lowered = [m.group(0).lower() for m in found]
    for start in range(len(found) - len(words) + 1):
        if lowered[start : start + len(words)] == words:
            return found[start].start(), found[start + len(words) - 1].end()
    return None


def dropped_qualifier(clause: str, sentences: list[str]) -> str | None:
    """Why `clause` is refused, or None: it retells one of the quoted `sentences` and drops a
    qualifier that sentence has where it retells what the qualifier limits ("drops 'usually' from
    its quote"). A qualifier in a part of the sentence the clause does not retell does not count:
    when the clause is a word-for-word part of the sentence, a qualifier counts only if the words
    it limits are inside that part ("you can request any of the four standard levels" keeps
    what it says when the sentence goes on "but internally only three are implemented")."""
    best = retold_sentence(clause, sentences)
    if best is None:
        return None
    kept = set(qualifiers(clause))
    mine = stems(clause)
    span = _verbatim_span(clause, best)
    for match in _QUALIFIER.finditer(best):
        word = match.group(1).lower()
        if word in kept or any(word in k or k in word for k in kept):
            continue
        window = list(_WORD.finditer(best, match.end()))[:QUALIFIED_WORDS]
        limited = stems(" ".join(w.group(0) for w in window))
        inside = [w for w in window if span is None or span[0] <= w.start() < span[1]]
        held = stems(" ".join(w.group(0) for w in inside)) & mine
        if limited and len(held) >= min(QUALIFIED_HELD, len(limited)):
            return f"drops '{word}' from its quote"
    return None
