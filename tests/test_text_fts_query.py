"""fts_query: a query's words and the FTS5 MATCH expressions built from them."""

from __future__ import annotations

from research_core.text.fts_query import has_cjk, query_terms, title_share, trigram_match, word_match


def test_query_terms_are_lower_cased_de_duplicated_and_leave_common_words_out() -> None:
    assert query_terms("What is the WAL in SQLite? wal") == ["wal", "sqlite"]
    assert query_terms("the of") == ["the", "of"]  # nothing but common words: they stay


def test_cjk_is_detected() -> None:
    assert has_cjk("数据库") and not has_cjk("database")


def test_match_expressions_quote_every_term() -> None:
    assert word_match(["wal", 'say "hi"']) == '"wal" OR "say ""hi"""'
    assert trigram_match(["数据库", "ab", "wal"]) == ('"数据库" OR "wal"', ["ab"])


def test_a_title_naming_the_query_words_shares_all_of_them() -> None:
    assert title_share(["logging", "locks"], "Logging and locking") == 1.0
    assert title_share(["logging"], "") == 0.0
