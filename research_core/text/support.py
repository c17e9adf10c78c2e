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


# Share of a clause's content words one quoted sentence holds for the clause to be a retelling of it.
RETOLD_SHARE = 0.6


def retold_sentence(clause: str, sentences: list[str]) -> str | None:
    """The sentence of `sentences` the clause retells: the one holding most of its content words, when
    it holds at least `RETOLD_SHARE` of them; None otherwise or when there are none."""
    if not sentences:
        return None
    share, best = max((support_share(clause, sentence), sentence) for sentence in sentences)
    return best if share >= RETOLD_SHARE else None


# Letters of a content word that count as its stem: "isolates" and "isolation" share "isola".
STEM_LETTERS = 5


def stems(text: str) -> set[str]:
    """The stems of the text's content words (their first `STEM_LETTERS` letters)."""
    return {w[:STEM_LETTERS] for w in content_words(text)}


# what may follow a whole short word for a longer word to be a form of it: "index" -> "indexes",
# "indexing"; "write" -> "writer"
_INFLECTIONS = ("", "s", "es", "ed", "d", "ing", "er", "ers", "r", "rs")


def same_stem(a: str, b: str) -> bool:
    """Whether two content words share a stem (`STEM_LETTERS` letters), where a word no longer than
    the stem counts only its inflected forms: "index" is a form of "indexing", but "ident" (the
    ident server) is not one of "identity"."""
    if a[:STEM_LETTERS] != b[:STEM_LETTERS]:
        return False
    short, long_ = sorted((a, b), key=len)
    return len(short) > STEM_LETTERS or (long_.startswith(short) and long_[len(short) :] in _INFLECTIONS)


def stem_share(claim: str, text: str) -> float:
    """Share of the claim's word stems that occur in `text` (1.0 for a claim without any): a
    retelling that changes a word's form ("isolates" for "isolation") still counts it as held."""
    own = stems(claim)
    if not own:
        return 1.0
    return len(own & stems(text)) / len(own)
