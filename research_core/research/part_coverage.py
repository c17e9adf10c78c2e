"""Which parts of a branch's question its findings do not touch yet.

A branch researching "What isolation levels does PostgreSQL offer, how does SQLite isolate
transactions, and which settings of Python's sqlite3 module control them?" (a flat run of a
multi-part question) is not done when two confident findings about PostgreSQL are in: two
thirds of the question are still open. Each clause of the question is a part; a part is
covered when a finding shares one of the part's own topic words (those the other parts do not
share, so "transactions" in every clause does not count).
"""

from __future__ import annotations

from collections.abc import Iterable

from research_core.planning.question_shape import question_parts, topic_words
from research_core.text.words import content_words, looks_english


def distinctive_words(parts: list[str]) -> list[set[str]]:
    """Each part's topic words less those every part shares (all of them when nothing is left)."""
    words = [topic_words(p) for p in parts]
    shared = set.intersection(*words) if words else set()
    return [(w - shared) or w for w in words]


def uncovered_parts(question: str, findings: Iterable[str]) -> list[str]:
    """The clauses of `question` that no finding touches (none for a one-part or non-English question)."""
    parts = question_parts(question)
    if len(parts) < 2 or not looks_english(question):
        return []
    found = set().union(*(content_words(f) for f in findings))
    return [part for part, own in zip(parts, distinctive_words(parts), strict=True) if own and not own & found]
