"""Near-duplicate detection for questions, in any language."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

_STOP_WORDS = (
    "a an the of for to in on and or is are was were what which who how why when where does do did "
    "with by from about between vs versus its their this that these those be"
)
_STOP = frozenset(_STOP_WORDS.split(" "))


def _normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"['’]s\b", "", text)
    return re.sub(r"[\s\W_]+", " ", text).strip()


# Scripts written without spaces between words: Han, kana, Hangul, Thai, Lao, Khmer, Myanmar.
_UNSPACED = re.compile(
    "([\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+)"
)


def _content_words(text: str) -> set[str]:
    """Content words; runs of an unspaced script (Japanese, Chinese ...) become character bigrams."""
    words = set()
    for token in _normalize(text).split():
        for part in _UNSPACED.split(token):
            if not part:
                continue
            if _UNSPACED.fullmatch(part):
                words.update({part[i : i + 2] for i in range(len(part) - 1)} or {part})
                continue
            if part in _STOP:
                continue
            words.add(re.sub(r"(?:'s|s)$", "", part) if len(part) > 3 else part)
    return words


def _bigrams(text: str) -> set[str]:
    t = _normalize(text).replace(" ", "")
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
    wa, wb = _content_words(a), _content_words(b)
    return max(
        _jaccard(wa, wb),
        _containment(wa, wb),
        _jaccard(_bigrams(a), _bigrams(b)),
        SequenceMatcher(None, _normalize(a), _normalize(b)).ratio(),
    )


def is_near_duplicate(candidate: str, existing: list[str], threshold: float = 0.8) -> str | None:
    """The existing text that `candidate` nearly duplicates, or None."""
    for text in existing:
        if similarity(candidate, text) >= threshold:
            return text
    return None
