"""Split a page's text into passages and pick the ones that answer a question (BM25, SQLite FTS5).

A page is cut into passages of about `target_chars` on paragraph boundaries (long paragraphs at
sentence boundaries). The passages are ranked against the question with FTS5's bm25 (porter
stemming, so "caching" matches "cache"); questions in Chinese, Japanese or Korean, which FTS5's
word tokenizer cannot split, are ranked by shared character bigrams instead.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from research_core.text.fts_query import has_cjk, query_terms, word_match

DEFAULT_PASSAGE_CHARS = 500
MIN_PASSAGE_CHARS = 120
MAX_PASSAGES_RANKED = 400  # a 200,000-character page at the default size
SEPARATOR = " … "

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+")


@dataclass(frozen=True)
class Passage:
    """One passage of a page: its position among the page's passages, its text and its score."""

    index: int
    text: str
    score: float


def _pieces(paragraph: str, limit: int) -> list[str]:
    """A paragraph cut into pieces of at most `limit` characters, at sentences, else at spaces."""
    if len(paragraph) <= limit:
        return [paragraph]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(paragraph):
        while len(sentence) > limit:
            cut = sentence.rfind(" ", limit // 2, limit)
            cut = cut if cut > 0 else limit
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > limit:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return [p for p in pieces if p]


def split_passages(text: str, target_chars: int = DEFAULT_PASSAGE_CHARS) -> list[str]:
    """Passages of at most `target_chars`: paragraphs joined while they fit, long ones cut at sentences."""
    limit = max(MIN_PASSAGE_CHARS, int(target_chars))
    passages: list[str] = []
    current = ""
    for line in text.split("\n"):
        paragraph = " ".join(line.split())
        if not paragraph:
            continue
        for piece in _pieces(paragraph, limit):
            if current and len(current) + 1 + len(piece) > limit:
                passages.append(current)
                current = piece
            else:
                current = f"{current}\n{piece}" if current else piece
    if current:
        passages.append(current)
    return passages[:MAX_PASSAGES_RANKED]


def _bigrams(text: str) -> set[str]:
    compact = "".join(text.lower().split())
    return {compact[i : i + 2] for i in range(len(compact) - 1)}


def _bigram_scores(question: str, passages: list[str]) -> list[float]:
    wanted = _bigrams(question)
    return [float(len(wanted & _bigrams(p))) for p in passages]


def _bm25_scores(question: str, passages: list[str]) -> list[float]:
    """BM25 of each passage for the question's content words (0 for passages matching none)."""
    terms = query_terms(question)
    scores = [0.0] * len(passages)
    if not terms:
        return scores
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE p USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')")
        conn.executemany("INSERT INTO p(rowid, text) VALUES (?, ?)", enumerate(passages))
        for rowid, score in conn.execute("SELECT rowid, bm25(p) FROM p WHERE p MATCH ?", [word_match(terms)]):
            scores[int(rowid)] = -float(score)  # FTS5's bm25 is negative: lower is better
    finally:
        conn.close()
    return scores


def rank_passages(question: str, passages: list[str]) -> list[Passage]:
    """The passages that match the question at all, best first (ties keep page order)."""
    scores = _bigram_scores(question, passages) if has_cjk(question) else _bm25_scores(question, passages)
    # Not rounded: a term found in most passages of a page has an idf near zero, yet still matches.
    ranked = [Passage(i, text, score) for i, (text, score) in enumerate(zip(passages, scores, strict=True))]
    return sorted((p for p in ranked if p.score > 0), key=lambda p: (-p.score, p.index))


def _shortened(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", max_chars // 2, max_chars - 1)
    return text[: cut if cut > 0 else max_chars - 1].rstrip() + "…"


def select_passages(
    question: str, text: str, max_chars: int, max_passages: int = 3, target_chars: int | None = None
) -> list[Passage]:
    """The best passages of `text` for `question`, at most `max_passages`, together within `max_chars`.

    Passages are about `target_chars` long (default: half the budget, 120 to 500 characters, so
    two focused passages fit rather than one long one); the best passage is always kept,
    shortened if it alone exceeds the budget. Empty when no passage matches the question.
    """
    size = target_chars if target_chars is not None else min(DEFAULT_PASSAGE_CHARS, max_chars // 2)
    ranked = rank_passages(question, split_passages(text, size))
    chosen: list[Passage] = []
    used = 0
    for passage in ranked[:max_passages]:
        extra = len(passage.text) + (len(SEPARATOR) if chosen else 0)
        if chosen and used + extra > max_chars:
            break
        if not chosen and extra > max_chars:
            passage = Passage(passage.index, _shortened(passage.text, max_chars), passage.score)
            extra = len(passage.text)
        chosen.append(passage)
        used += extra
    return chosen


def joined(passages: list[Passage]) -> str:
    """The passages as one snippet, best first, each passage on one line."""
    return SEPARATOR.join(" ".join(p.text.split()) for p in passages)
