"""The part of a long passage that speaks to a question, for prompts that can only show a little of it."""

from __future__ import annotations

import math

from research_core.text.sentence_ends import SENTENCE_END
from research_core.text.words import content_words


def best_window(text: str, question: str, chars: int, joiner: str = " ") -> str:
    """The run of whole sentences, at most `chars` long, sharing the most content words with `question`,
    each word weighted by how rare it is among the text's sentences (`_rarity`).

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
    best, best_score = "", -1.0
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
        score = sum(weight[w] for w in shared)
        if score > best_score:
            best, best_score = window, score
    return best


def _rarity(wanted: set[str], words: list[set[str]]) -> dict[str, float]:
    """Each wanted word's weight: 1 plus the log of how rare it is among the sentences. A word most
    sentences have (the page's own subject: "PostgreSQL", "child_process") says little about which
    window answers; a word one sentence has ("maxBuffer") says much. On the shown passages of two
    recorded benchmark rounds this kept 3 and 5 more of the questions' aspects in the windows, and
    lost none (bench/README, round LL)."""
    count = len(words)
    return {w: 1.0 + math.log((count + 1) / (1 + sum(1 for s in words if w in s))) for w in wanted}
