"""Cleaning the question a user types, before a run records it (research_core/runs/inputs.py)."""

from __future__ import annotations

import pytest

from research_core.runs.errors import RunError
from research_core.runs.inputs import MAX_QUESTION_CHARS, clean_question


def test_control_characters_and_runs_of_whitespace_are_removed_from_the_recorded_question():
    typed = "  What  is\tWAL\nmode?\x00\x1b[31m in SQLite\u200b  "
    # a pasted question keeps its words; the escape's ESC goes, so no colour code reaches History
    assert clean_question(typed) == "What is WAL mode?[31m in SQLite"


def test_letters_of_any_script_are_kept():
    assert clean_question("Что такое WAL? ¿Y en español? 日本語") == "Что такое WAL? ¿Y en español? 日本語"


@pytest.mark.parametrize("typed", ["", "   ", "\n\t", "\x00\x07"])
def test_a_question_with_nothing_to_research_is_refused_with_what_to_do(typed):
    with pytest.raises(RunError) as caught:
        clean_question(typed)
    assert caught.value.user_message == "The question is empty. Type a question to research."


def test_a_question_at_the_limit_is_accepted_and_one_character_more_is_refused_naming_both_lengths():
    assert len(clean_question("a" * MAX_QUESTION_CHARS)) == MAX_QUESTION_CHARS
    with pytest.raises(RunError) as caught:
        clean_question("a" * (MAX_QUESTION_CHARS + 1))
    message = caught.value.user_message
    assert "4,001 characters long; the limit is 4,000" in message and "document library" in message


def test_the_limit_counts_the_cleaned_text_not_the_padding():
    padded = " " * 100 + "a" * MAX_QUESTION_CHARS + "\n" * 100
    assert clean_question(padded) == "a" * MAX_QUESTION_CHARS


def test_text_is_required():
    with pytest.raises(RunError, match="must be text"):
        clean_question(None)  # type: ignore[arg-type]
