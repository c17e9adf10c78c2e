"""Distinctive terms of a statement must be in its quotes: numbers keep the unit written onto them."""

from __future__ import annotations

from research_core.synthesis.grounding import ground_text
from research_core.text.terms import missing_terms

MOD_REQTIMEOUT = {"title": "mod_reqtimeout", "url": "/usr/share/doc/apache2-doc/manual/en/mod/mod_reqtimeout.html"}
LIMITS = {"title": "Limits In SQLite", "url": "/usr/share/doc/sqlite3/limits.html"}
TIMEOUT_QUOTE = "The default request timeout changed from no timeout to 300s (5 minutes)."


def test_a_number_with_its_unit_is_one_term():
    assert missing_terms("The default changed to 300s.", TIMEOUT_QUOTE) == []
    assert missing_terms("SQLite allows up to 32 columns.", "SQLite allows up to 32K columns.") == ["32"]
    assert missing_terms("SQLite allows up to 32K columns.", "SQLite allows up to 32 columns.") == ["32K"]


def test_the_quote_itself_is_not_refused_for_its_units():
    out = ground_text(
        f"{TIMEOUT_QUOTE} [[src:t]]", {"t": MOD_REQTIMEOUT}, {"t": [TIMEOUT_QUOTE]}, [], "What is the request timeout?"
    )
    assert "300s" in out.text and not out.removed


def test_a_number_without_the_quotes_unit_is_refused():
    quote = "SQLite allows up to 32K columns in a table."
    out = ground_text(
        "SQLite allows up to 32 columns in a table [[src:l]].",
        {"l": LIMITS},
        {"l": [quote]},
        ["SQLite"],
        "How many columns?",
    )
    assert "up to 32 columns" not in out.text
