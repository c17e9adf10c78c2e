"""The part of a long passage that speaks to a question, for prompts that can only show a little of it."""

from __future__ import annotations

import re

from research_core.text.words import content_words

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def best_window(text: str, question: str, chars: int, joiner: str = " ") -> str:
    """The run of whole sentences, at most `chars` long, sharing the most content words with `question`.

    Text that fits is returned whole; ties go to the earliest window. A single sentence longer than
    `chars` is cut at a word boundary. The window's sentences are joined with `joiner`: a newline
    keeps apart the lines of a text written one statement per line (`quotes.statements_of`), where a
    table's "Default: KeepAliveTimeout 5" has no full stop to end it.
    """
    text = " ".join(text.split()) if "\n" not in text else text.strip()
    if len(text) <= chars:
        return text
    wanted = content_words(question)
    sentences = [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    best, best_score = "", -1
    for start in range(len(sentences)):
        window = ""
        for sentence in sentences[start:]:
            candidate = f"{window}{joiner}{sentence}".strip()
            if len(candidate) > chars:
                break
            window = candidate
        if not window:
            window = sentences[start][:chars].rsplit(" ", 1)[0]
        score = len(wanted & content_words(window))
        if score > best_score:
            best, best_score = window, score
    return best
