"""Evidence gates: what may enter a branch, checked by code so they hold with any model.

1. A source enters a branch only if it is about the branch's question: when the question names
   subjects, the source names one of them; otherwise it shares enough of the question's topic words.
2. A finding is kept only if it is about the branch and the text of the source it cites
   supports it; it is attributed to the one source that supports it best (never to five pages).
3. A finding that nearly repeats one already kept is merged into it (dropped, with a note).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_core.planning.question_shape import subjects, topic_words
from research_core.schemas import Source
from research_core.text.similarity import is_near_duplicate
from research_core.text.support import SUPPORT_BAR, support_share
from research_core.text.words import content_words, looks_english

# Share of the branch question's topic words a source must contain, and at least this many of them.
RELEVANCE_BAR = 0.25
MIN_SHARED_TOPIC_WORDS = 2
DUPLICATE_BAR = 0.8


@dataclass(frozen=True)
class Verdict:
    """Whether an item passed a gate, and a reason a user can read."""

    ok: bool
    reason: str
    score: float = 0.0


def _url_words(url: str) -> set[str]:
    return content_words(re.sub(r"[/_.:#?=&-]+", " ", url))


def source_relevance(question: str, source: Source) -> Verdict:
    """Rule 1: does `source` (title, address and text) speak to `question`?"""
    words = topic_words(question)
    if words and not looks_english(question) and looks_english(source.snippet):
        # a question in another language than the source: word overlap cannot judge relevance
        return Verdict(True, "the question is written in another language; relevance not checked", 1.0)
    hay = f"{source.title} {source.url} {source.snippet}".lower()
    names = [n for n in subjects(question) if len(n) > 1]
    if names and not any(n.lower() in hay for n in names):
        return Verdict(False, f"names none of {', '.join(names[:4])}")
    if not words:
        return Verdict(True, "the question has no topic words to compare", 1.0)
    shared = words & (content_words(f"{source.title} {source.snippet}") | _url_words(source.url))
    score = len(shared) / len(words)
    if names:
        # it names the question's subject: sharing one topic word (the subject itself counts) is enough
        ok = len(shared) >= 1
        return Verdict(
            ok, f"names {', '.join(n for n in names if n.lower() in hay)[:80]}; shares {len(shared)} topic words", score
        )
    need = min(MIN_SHARED_TOPIC_WORDS, len(words))
    if len(shared) < need or score < RELEVANCE_BAR:
        return Verdict(False, f"shares {len(shared)} of {len(words)} topic words", score)
    return Verdict(True, f"shares {len(shared)} of {len(words)} topic words", score)


def source_text(source: Source | dict) -> str:
    """The text a source offers as evidence: its title and passage."""
    if isinstance(source, dict):
        return f"{source.get('title', '')} {source.get('snippet', '')}"
    return f"{source.title} {source.snippet}"


def attribute(claim: str, cited: list[Source], shown: list[Source]) -> tuple[Source | None, float]:
    """Rule 2: the one source that best supports `claim`, preferring those the model cited.

    Returns (source, support share) or (None, best share) when no source reaches `SUPPORT_BAR`.
    """
    best: tuple[Source | None, float] = (None, 0.0)
    for pool in (cited, [s for s in shown if s not in cited]):
        for source in pool:
            share = support_share(claim, source_text(source))
            if share > best[1]:
                best = (source, share)
        if best[1] >= SUPPORT_BAR:
            return best
    return (None, best[1])


def about_branch(claim: str, question: str) -> bool:
    """Rule 2: the claim shares a topic word with the branch question or names one of its subjects."""
    lowered = claim.lower()
    if any(n.lower() in lowered for n in subjects(question)):
        return True
    words = topic_words(question)
    if not words or not looks_english(question):
        return True  # nothing to compare, or another language than the claim may be written in
    return bool(words & content_words(claim))


def duplicate_of(claim: str, known: list[str]) -> str | None:
    """Rule 3: the known finding `claim` nearly repeats, or None."""
    return is_near_duplicate(claim, known, DUPLICATE_BAR)
