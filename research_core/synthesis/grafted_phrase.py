"""A phrase grafted from another quote: "Read Committed is the default isolation level in
PostgreSQL and provides a consistent view of the data for each transaction", whose "consistent
view" comes from a sentence about Serializable.

A clause that retells one quoted sentence and carries, beside it, two neighbouring words that
sentence's quote lacks but another quote has side by side, joins what the other quote says of its
own subject to the first one's. Overlap measures pass it (most of its words are in the first
quote, the rest in the second), and so does the one-quote rule, because the first quote alone holds
most of it. So such a clause is refused on its wording, and the quote it retells stands in its place.
"""

from __future__ import annotations

from research_core.synthesis.evidence import sentences_of
from research_core.text.support import SUPPORT_BAR, same_stem, support_share
from research_core.text.words import content_words, normalize

# neighbouring content words of the clause that another quote must hold side by side
GRAFT_WORDS = 2


def _ordered_words(text: str) -> list[str]:
    """The text's content words in their order (`content_words` keeps no order)."""
    out = []
    for token in normalize(text).split():
        word = content_words(token)
        if len(word) == 1:
            out.extend(word)
    return out


def _holds(words: list[str], word: str) -> bool:
    return any(same_stem(word, other) for other in words)


def _side_by_side(phrase: list[str], words: list[str]) -> bool:
    """Whether `words` has the phrase's words one after the other."""
    width = len(phrase)
    return any(
        all(same_stem(a, b) for a, b in zip(phrase, words[i : i + width], strict=True))
        for i in range(len(words) - width + 1)
    )


def grafted_phrase(clause: str, units: list[str]) -> str | None:
    """Why `clause` is refused, or None: it retells one quoted sentence (the one holding most of its
    words, at least `SUPPORT_BAR`) and adds `GRAFT_WORDS` neighbouring words that sentence's quote
    lacks and a sentence of another quote (of `units`) has side by side. The sentences of the retold one's
    own quote are one fact told in neighbouring sentences: joining them grafts nothing."""
    if len(units) < 2:
        return None
    placed = [(support_share(clause, s), s, unit) for unit in units for s in sentences_of([unit])]
    if not placed:
        return None
    share, _, home = max(placed)
    if share < SUPPORT_BAR:
        return None
    mine = _ordered_words(clause)
    own = _ordered_words(home)
    others = [_ordered_words(s) for _, s, unit in placed if unit != home]
    lacking = [not _holds(own, w) for w in mine]
    for start in range(len(mine) - GRAFT_WORDS + 1):
        if not all(lacking[start : start + GRAFT_WORDS]):
            continue
        phrase = mine[start : start + GRAFT_WORDS]
        if any(_side_by_side(phrase, words) for words in others):
            return f"grafts '{' '.join(phrase)}' from another quote onto the one it retells"
    return None
