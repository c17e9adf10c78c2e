"""support_share: the share of a claim's content words found in the text it rests on."""

from __future__ import annotations

from research_core.text.support import SUPPORT_BAR, support_share


def test_a_claim_whose_words_are_all_in_the_text_is_fully_supported() -> None:
    assert support_share("SQLite uses write-ahead logging", "SQLite can use write-ahead logging for speed") == 1.0


def test_a_claim_sharing_no_word_with_the_text_has_no_support() -> None:
    assert support_share("Redis persists data", "PostgreSQL stores rows") == 0.0
    assert support_share("Redis persists data", "PostgreSQL stores rows") < SUPPORT_BAR


def test_a_claim_without_content_words_counts_as_supported() -> None:
    assert support_share("the of", "anything") == 1.0
