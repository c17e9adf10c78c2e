"""Negation: a statement must deny what its quote denies, and only that.

A retelling that drops or moves a "not" reverses its source while keeping nearly all of its words:
"This is not a check to see if the response code is 200 OK" became "It checks if the response
status code is not 200 OK". Word overlap calls that supported; this check does not.

The negated word of a "not" (and "no", "never", "cannot", "n't", "without") is the first content
word after it ("not that they will be sequential" denies "sequential"). Two rules:
1. a word the statement negates must be negated in one of the two quote sentences closest to it;
2. a word the closest quote sentence negates, used by the statement, must be negated in the
   statement too.
A capitalised "None" (but for "None of ...") is a value (Python's None), not a negator: "if
isolation_level is not None, new transactions are implicitly opened" denies None itself, and
"if set to None, new transactions are implicitly opened" reverses it.
"""

from __future__ import annotations

import re

from research_core.text.words import content_words, normalize

_NEGATORS = frozenset(["not", "no", "never", "cannot", "without", "neither", "nor", "none", "nothing"])
# words that stand between a negator and what it denies ("is not always", "does not have to be")
_SKIP = frozenset(
    [
        "be",
        "is",
        "are",
        "was",
        "were",
        "been",
        "being",
        "a",
        "an",
        "the",
        "to",
        "have",
        "has",
        "had",
        "do",
        "does",
        "any",
        "always",
        "necessarily",
        "really",
        "also",
        "yet",
        "ever",
        "more",
        "just",
        "only",
        "so",
        "very",
        "all",
        "that",
        "they",
        "it",
        "this",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "should",
    ]
)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


# "None" the value: capitalised, and not the pronoun of "None of the rows ..."
_NONE_VALUE = re.compile(r"\bNone\b(?!\s+of\b)")


def _words(text: str) -> list[str]:
    text = _NONE_VALUE.sub("nonevalue", text)
    text = re.sub(r"n['’]t\b", " not", text.replace("cannot", "can not"))
    return normalize(text).split()


def negated_words(text: str) -> set[str]:
    """Stems of the words `text` negates (see the module docstring)."""
    words = _words(text)
    out: set[str] = set()
    for i, word in enumerate(words):
        if word not in _NEGATORS:
            continue
        for following in words[i + 1 : i + 7]:
            if following in _NEGATORS:
                break
            if following in _SKIP or not content_words(following):
                continue
            out.add(_stem(following))
            break
    return out


def _shown(stem: str) -> str:
    return "None" if stem == _stem("nonevalue") else stem


def _stems(text: str) -> set[str]:
    return {_stem(w) for w in _words(text) if w not in _NEGATORS and content_words(w)}


def closest_sentences(statement: str, quote: str, count: int = 2) -> str:
    """The `count` sentences of `quote` that share the most content words with `statement`."""
    wanted = content_words(statement)
    sentences = [s for s in _SENTENCE.split(quote) if s.strip()]
    ranked = sorted(sentences, key=lambda s: -len(wanted & content_words(s)))
    return " ".join(ranked[:count])


def polarity_conflict(statement: str, quote: str) -> str | None:
    """Why `statement` reverses `quote` (a negation added, dropped or moved), or None when it does not."""
    near = closest_sentences(statement, quote)
    said, denied = negated_words(statement), negated_words(near)
    added = sorted(w for w in said - denied)
    if added:
        return f"negates '{_shown(added[0])}', which the quote does not"
    # a dropped "not" is looked for in the one sentence the statement retells: the next closest may
    # deny a word the statement uses about something else
    denied = negated_words(closest_sentences(statement, quote, 1))
    dropped = sorted(w for w in denied - said if w in _stems(statement) and w not in said)
    if dropped:
        return f"states '{_shown(dropped[0])}' where the quote denies it"
    return None
