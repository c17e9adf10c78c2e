"""Cleaning what a user types before a run records it."""

from __future__ import annotations

import unicodedata

from research_core.runs.errors import RunError

MAX_QUESTION_CHARS = 4000


def clean_question(question: str) -> str:
    """The question as a run records it, or RunError saying what to change.

    Control characters are removed (tabs and newlines count as spaces), runs of whitespace become
    one space, and the ends are trimmed. An empty result, text over MAX_QUESTION_CHARS characters
    or anything that is not text is refused.
    """
    if not isinstance(question, str):
        raise RunError("The question must be text.")
    text = "".join(ch for ch in question if ch in "\n\t" or unicodedata.category(ch)[0] != "C")
    text = " ".join(text.split())
    if not text:
        raise RunError("The question is empty. Type a question to research.")
    if len(text) > MAX_QUESTION_CHARS:
        raise RunError(
            f"The question is {len(text):,} characters long; the limit is {MAX_QUESTION_CHARS:,}. "
            "Shorten it, or put the background material in the document library."
        )
    return text
