"""Content words of a text, in any language: the unit every lexical check in Arbor counts."""

from __future__ import annotations

import re
import unicodedata

_STOP_WORDS = (
    "a an the of for to in on and or is are was were what which who how why when where does do did "
    "with by from about between vs versus its their this that these those be"
)
STOP_WORDS = frozenset(_STOP_WORDS.split(" "))

# Scripts written without spaces between words: Han, kana, Hangul, Thai, Lao, Khmer, Myanmar.
_UNSPACED = re.compile(
    "([\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+)"
)


def normalize(text: str) -> str:
    """NFKC, lower case, possessive 's removed, every run of non-word characters one space."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"['’]s\b", "", text)
    return re.sub(r"[\s\W_]+", " ", text).strip()


def folded(text: str) -> str:
    """Lower case, every run of whitespace one space: two queries or questions that differ only so are the same."""
    return " ".join(text.lower().split())


def content_words(text: str) -> set[str]:
    """Content words; runs of an unspaced script (Japanese, Chinese ...) become character bigrams.

    Stop words drop out and a plural "s" is removed from words longer than three letters, so
    "writes" and "write" count as one word.
    """
    words = set()
    for token in normalize(text).split():
        for part in _UNSPACED.split(token):
            if not part:
                continue
            if _UNSPACED.fullmatch(part):
                words.update({part[i : i + 2] for i in range(len(part) - 1)} or {part})
                continue
            if part in STOP_WORDS:
                continue
            words.add(re.sub(r"(?:'s|s)$", "", part) if len(part) > 3 else part)
    return words


_ENGLISH = frozenset(
    [
        "the",
        "of",
        "and",
        "is",
        "are",
        "was",
        "were",
        "what",
        "how",
        "why",
        "which",
        "does",
        "do",
        "did",
        "to",
        "in",
        "for",
        "with",
        "this",
        "that",
        "on",
        "by",
        "from",
    ]
)


def looks_english(text: str) -> bool:
    """Whether the text uses common English function words (a cheap language check for lexical comparisons)."""
    return bool(_ENGLISH & set(re.findall(r"[a-z]+", text.lower())))
