"""Advice a retelling adds: "the manual recommends ProxyPass for load balancing" from a quote saying
only that a reverse proxy "can also be used to balance load".

A possibility turned into a recommendation reads as the manual's own advice, and every overlap
measure misses it, because the advice word is the only word the quote lacks. So a clause that
retells one quoted sentence may use a word of advice (recommend, advise, should, best, prefer, ...)
only when that sentence, or another quoted sentence it draws on, has one too; otherwise it is
refused on its wording, and the engine puts the quoted sentence itself in its place. The sentence
it retells is the one holding most of its words, at least `SUPPORT_BAR` of them (not the stricter
bar of a retelling): the advice word and the name it is given to are often the only words the
quote lacks.
"""

from __future__ import annotations

import re

from research_core.text.support import SUPPORT_BAR, support_share

# words that make a statement the source's advice rather than a fact about what is possible
_ADVICE = re.compile(
    r"\b(recommend\w*|advis\w*|advice|should|ought|best|prefer\w*|encourag\w*|suggest\w*|must)\b", re.IGNORECASE
)


# the share of the clause's words a quoted sentence must hold for its advice to count
DRAWN_ON_SHARE = 0.25


def added_advice(clause: str, sentences: list[str]) -> str | None:
    """Why `clause` is refused, or None: it retells one of the quoted `sentences` and gives advice
    ("recommends", "should", "best") where neither that sentence nor another it draws on gives any."""
    mine = _ADVICE.search(clause)
    if mine is None or not sentences:
        return None
    placed = [(support_share(clause, sentence), sentence) for sentence in sentences]
    share, best = max(placed)
    if share < SUPPORT_BAR:
        return None
    # advice in another quoted sentence the clause draws on ("..., so Repeatable Read should now be
    # requested") is the source's own
    if any(_ADVICE.search(s) for held, s in placed if s == best or held >= DRAWN_ON_SHARE):
        return None
    return f"adds '{mine.group(1).lower()}', advice its quote does not give"
