"""Support by shared words: the share of a claim's content words that occur in the text it rests on."""

from __future__ import annotations

from research_core.text.words import content_words

# Share of a claim's content words that must occur in the text that supports it.
SUPPORT_BAR = 0.5


def support_share(claim: str, text: str) -> float:
    """Share of the claim's content words that occur in `text` (1.0 for a claim without any)."""
    words = content_words(claim)
    if not words:
        return 1.0
    return len(words & content_words(text)) / len(words)
