"""A query's words and SQLite FTS5 MATCH expressions: shared by the library and passage ranking."""

from __future__ import annotations

import re

MAX_QUERY_TERMS = 32
STOPWORDS = frozenset(
    {
        "a", "about", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
        "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on",
        "or", "our", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
        "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with",
        "you", "your",
    }
)  # fmt: skip
_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]"
)
_WORD = re.compile(r"\w+")


def query_terms(query: str) -> list[str]:
    """The words of a query, lower-cased, de-duplicated, in order (FTS syntax characters drop out).

    Common English words are left out when the query has others, so that OR-ing the terms
    does not match every passage containing "the".
    """
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        seen.setdefault(word, None)
    terms = list(seen)
    content = [t for t in terms if t not in STOPWORDS]
    return (content or terms)[:MAX_QUERY_TERMS]


def has_cjk(text: str) -> bool:
    """True if the text contains Chinese, Japanese or Korean characters."""
    return _CJK.search(text) is not None


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def title_share(terms: list[str], title: str) -> float:
    """The share of `terms` that a word of `title` starts with (or starts), so "logging" meets
    "Logging" and "locks" meets "locking": a page titled with the query's words is about it."""
    words = [w for w in _WORD.findall(title.lower()) if len(w) > 2]
    if not terms or not words:
        return 0.0
    stems = [t[: max(4, len(t) - 3)] for t in terms]
    return sum(any(w.startswith(stem) or stem.startswith(w) for w in words) for stem in stems) / len(terms)


def word_match(terms: list[str]) -> str:
    """An FTS5 MATCH expression: every term quoted (so it is a plain string), OR-ed."""
    return " OR ".join(_quote(t) for t in terms)


def trigram_match(terms: list[str]) -> tuple[str, list[str]]:
    """(MATCH expression for the trigram index, terms too short for it).

    A CJK term (often a whole phrase, there being no spaces) becomes its overlapping trigrams,
    so a passage matches on the parts it shares; other terms of 3+ characters match as
    substrings.
    """
    grams: dict[str, None] = {}
    short: list[str] = []
    for term in terms:
        if len(term) < 3:
            short.append(term)
        elif has_cjk(term):
            for i in range(len(term) - 2):
                grams.setdefault(term[i : i + 3], None)
        else:
            grams.setdefault(term, None)
    return " OR ".join(_quote(g) for g in list(grams)[: MAX_QUERY_TERMS * 2]), short
