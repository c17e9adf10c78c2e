"""Near-duplicate detection for questions, in any language."""

from __future__ import annotations

from difflib import SequenceMatcher

from research_core.text.words import content_words, normalize


def _bigrams(text: str) -> set[str]:
    t = normalize(text).replace(" ", "")
    return {t[i : i + 2] for i in range(len(t) - 1)}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _containment(a: set[str], b: set[str]) -> float:
    """Share of the smaller word set found in the larger one (0 for sets under 3 words)."""
    small = min(len(a), len(b))
    return len(a & b) / small if small >= 3 else 0.0


def similarity(a: str, b: str) -> float:
    """0..1: the highest of content-word overlap or containment, bigram overlap and sequence ratio.

    Containment catches a question restated as a subset of another ("core facts about X" vs
    "core facts about X for web apps").
    """
    wa, wb = content_words(a), content_words(b)
    return max(
        _jaccard(wa, wb),
        _containment(wa, wb),
        _jaccard(_bigrams(a), _bigrams(b)),
        SequenceMatcher(None, normalize(a), normalize(b)).ratio(),
    )


def is_near_duplicate(candidate: str, existing: list[str], threshold: float = 0.8) -> str | None:
    """The existing text that `candidate` nearly duplicates, or None."""
    for text in existing:
        if similarity(candidate, text) >= threshold:
            return text
    return None
