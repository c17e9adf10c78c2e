"""The part of a long passage that speaks to a question, for prompts that can only show a little of it."""

from __future__ import annotations

import logging
import math

from research_core.text import embedding
from research_core.text.embedding_cache import cached_vectors
from research_core.text.sentence_ends import SENTENCE_END
from research_core.text.words import content_words, looks_english

logger = logging.getLogger(__name__)


def best_window(text: str, question: str, chars: int, joiner: str = " ") -> str:
    """The run of whole sentences, at most `chars` long, that speaks most to `question`: sharing the most
    content words with it, each word weighted by how rare it is among the text's sentences (`_rarity`),
    and closest to it in meaning (`_with_meaning`).

    Text that fits is returned whole; ties go to the earliest window. A single sentence longer than
    `chars` is cut at a word boundary. The window's sentences are joined with `joiner`: a newline
    keeps apart the lines of a text written one statement per line (`quotes.statements_of`), where a
    table's "Default: KeepAliveTimeout 5" has no full stop to end it.
    """
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    if len(text) <= chars:
        return text
    wanted = content_words(question)
    sentences = [s.strip() for s in SENTENCE_END.split(text) if s.strip()]
    words = [content_words(s) & wanted for s in sentences]
    weight = _rarity(wanted, words)
    candidates: list[tuple[str, float]] = []
    for start in range(len(sentences)):
        window, shared = "", set()
        for sentence, its_words in zip(sentences[start:], words[start:], strict=True):
            candidate = f"{window}{joiner}{sentence}".strip()
            if len(candidate) > chars:
                break
            window, shared = candidate, shared | its_words
        if not window:
            window = sentences[start][:chars].rsplit(" ", 1)[0]
            shared = content_words(window) & wanted
        candidates.append((window, sum(weight[w] for w in shared)))
    scores = _with_meaning(candidates, question)
    best = max(range(len(candidates)), key=lambda i: (scores[i], -i))
    return candidates[best][0]


# Words alone chose "If SQLITE_OMIT_TRIGGER is defined ... foreign key constraints are not enforced" for
# "What must be done in SQLite before foreign key constraints can be enforced?" (it has the rare word
# "enforced"); with meaning at twice the weight of words, the window is "PRAGMA foreign_keys = ON; Foreign
# key constraints are disabled by default ..., so must be enabled separately for each database
# connection". Measured in bench/README (round SS).
MEANING_WEIGHT = 2.0


def _with_meaning(candidates: list[tuple[str, float]], question: str) -> list[float]:
    """Each window's score: its words' score as a share of the best window's, plus `MEANING_WEIGHT` times
    its cosine with the question (`text.embedding`) where the bundled model can read the question (in
    English); the words' share alone without the model."""
    top = max((score for _, score in candidates), default=0.0) or 1.0
    words = [score / top for _, score in candidates]
    if len(candidates) < 2 or not looks_english(question) or not embedding.available():
        return words
    try:
        asked, *vectors = cached_vectors([question, *[window for window, _ in candidates]])
    except Exception as exc:  # a broken model install must not stop a step
        logger.warning("meaning choice of a window skipped: %r", exc)
        return words
    return [w + MEANING_WEIGHT * float(v @ asked) for w, v in zip(words, vectors, strict=True)]


def _rarity(wanted: set[str], words: list[set[str]]) -> dict[str, float]:
    """Each wanted word's weight: 1 plus the log of how rare it is among the sentences. A word most
    sentences have (the page's own subject: "PostgreSQL", "child_process") says little about which
    window answers; a word one sentence has ("maxBuffer") says much. On the shown passages of two
    recorded benchmark rounds this kept 3 and 5 more of the questions' aspects in the windows, and
    lost none (bench/README, round LL)."""
    count = len(words)
    return {w: 1.0 + math.log((count + 1) / (1 + sum(1 for s in words if w in s))) for w in wanted}
