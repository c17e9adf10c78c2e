"""A sentence naming no system may not join one system's manual to another's."""

from __future__ import annotations

from research_core.synthesis.grounding import ground_text

QUESTION = (
    "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, how are queries written, "
    "and how are results ranked?"
)
NAMES = ("PostgreSQL", "SQLite")
SOURCES = {
    "s": {
        "title": "SQLite FTS3 and FTS4 Extensions",
        "url": "/usr/share/doc/sqlite3/fts3.html",
        "snippet": "In the examples above, the right-hand operand of the MATCH operator is a string consisting of a "
        "single term.",
    },
    "p": {
        "title": "12.1. Introduction",
        "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-intro.html",
        "snippet": "A tsquery value represents a text query; the @@ match operator returns true if a tsvector "
        "matches a tsquery.",
    },
}
QUOTES = {"s": [SOURCES["s"]["snippet"]], "p": [SOURCES["p"]["snippet"]]}


def test_a_sentence_stitched_from_two_systems_manuals_goes():
    # MATCH and its single-term operand are SQLite's, tsquery is PostgreSQL's: together the two pages
    # hold the sentence's words, neither says it
    text = (
        "The right-hand operand of the MATCH operator can be a string consisting of a single term or a tsquery, "
        "which represents a text query [[src:s]] [[src:p]]."
    )
    out = ground_text(text, SOURCES, QUOTES, NAMES, QUESTION)
    assert "tsquery" not in out.text
    # what is left is SQLite's own sentence, quoted, cited to SQLite's page only
    assert out.text in ("", f"{SOURCES['s']['snippet'].rstrip('.')} [[src:s]].")


def test_a_sentence_one_manual_says_keeps_its_citation_beside_the_other():
    text = "The right-hand operand of the MATCH operator is a string consisting of a single term [[src:s]] [[src:p]]."
    out = ground_text(text, SOURCES, QUOTES, NAMES, QUESTION)
    assert out.supported == 1 and "[[src:s]]" in out.text


PY_TOPIC = "How do transactions and isolation levels work in SQLite and in Python's sqlite3 module?"
PY_NAMES = ("SQLite", "Python", "sqlite3")
PY_SOURCES = {
    "py": {
        "title": "sqlite3 — DB-API 2.0 interface for SQLite databases — Python 3.11.2 documentation",
        "url": "/usr/share/doc/python3.11/html/library/sqlite3.html",
        "snippet": "The isolation_level attribute controls the transaction handling: it can be used to choose the "
        "underlying SQLite transaction behaviour, DEFERRED, IMMEDIATE or EXCLUSIVE.",
    },
    "iso": {
        "title": "Isolation In SQLite",
        "url": "/usr/share/doc/sqlite3/isolation.html",
        "snippet": "Isolation in SQLite is serializable, except in shared-cache mode with PRAGMA read_uncommitted, "
        "where it is read-uncommitted.",
    },
}
PY_QUOTES = {sid: [s["snippet"]] for sid, s in PY_SOURCES.items()}


def test_a_sentence_naming_one_system_may_not_stitch_two_manuals_either():
    # the attribute is the Python module's, the two levels are SQLite's own isolation: neither page says this
    text = (
        "The isolation level attribute can be used to choose the underlying SQLite transaction behaviour, which is "
        'either "serializable" or "read-uncommitted" [[src:py]] [[src:iso]].'
    )
    out = ground_text(text, PY_SOURCES, PY_QUOTES, PY_NAMES, PY_TOPIC)
    assert "read-uncommitted" not in out.text and "serializable" not in out.text
