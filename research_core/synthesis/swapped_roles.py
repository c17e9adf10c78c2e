"""Two things swapped around the words that relate them: "Window functions act as aggregate
functions only when an OVER clause follows the call", retelling "Aggregate functions act as window
functions only when an OVER clause follows the call".

Every word of such a sentence is on the page, in nearly the same order, so word overlap and the
subject rules pass it; `turned_around` sees it only when the two ends are names of the question.
This rule looks at any two content words: when the clause has A, some words, then B, and the quote
it retells has B, the same words, then A, and those words carry a content word of their own ("act
as", "is stored in", not "and" or "or"), the clause says the quote the other way round. The refusal
is one of wording: the quote itself can stand in its place.
"""

from __future__ import annotations

import re

from research_core.text.support import STEM_LETTERS, stems

# words dropped before comparing: "an aggregate function acts as a window function" relates the same
# two things as "aggregate functions act as window functions"
_ARTICLES = frozenset({"a", "an", "the"})
# words that list things rather than relate them, as their stems ("versus" is "versu"): "indexes,
# triggers and views" may be retold in any order
_LISTING = frozenset({",", ";", ":", "(", ")", "and", "or", "nor", "versu", "vs"})
# the most words that may relate the two swapped things
_LONGEST_RELATION = 6


def _stems(text: str) -> list[str]:
    """The text's words in order, lower-cased, articles dropped, each cut to its stem."""
    return [w[:STEM_LETTERS] for w in re.findall(r"\w+|[,;:()]", text.lower()) if w not in _ARTICLES]


def _relations(words: list[str], content: set[str]) -> set[tuple[str, tuple[str, ...], str]]:
    """(first, the words between, second) for each two content stems at most `_LONGEST_RELATION`
    words apart whose words between hold a content word other than the two themselves, and no
    comma or "and" (`_LISTING`)."""
    found: set[tuple[str, tuple[str, ...], str]] = set()
    for i, first in enumerate(words):
        if first not in content:
            continue
        for j in range(i + 2, min(len(words), i + _LONGEST_RELATION + 2)):
            second = words[j]
            between = tuple(words[i + 1 : j])
            if second not in content or second == first or _LISTING & set(between):
                continue
            if any(w in content and w not in (first, second) for w in between):
                found.add((first, between, second))
    return found


def swapped_roles(clause: str, quote: str | None) -> str | None:
    """Why `clause` swaps two things its quote relates ("A act as B" from "B act as A"), or None."""
    if not quote:
        return None
    content = stems(f"{clause} {quote}")
    theirs = _relations(_stems(quote), content)
    for first, between, second in _relations(_stems(clause), content):
        if (second, between, first) in theirs and (first, between, second) not in theirs:
            return f"turns its quote around: the quote has '{second} ... {first}', not the other way round"
    return None
