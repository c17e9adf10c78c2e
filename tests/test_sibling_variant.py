"""A fact a page states of one numbered variant (FTS5) is not given to another (FTS3, FTS4)."""

from research_core.synthesis.grounding import ground_text
from research_core.synthesis.sibling_variant import numbered_variants, sibling_variant

FTS5 = {"title": "SQLite FTS5 Extension", "url": "/usr/share/doc/sqlite3/fts5.html", "snippet": ""}
QUOTE = "The full-text index maintained by FTS5 is stored as a series of fixed-size blobs in a database table."
TOPIC = "Compare full-text search in PostgreSQL and SQLite: how are documents indexed?"
NAMES = ("PostgreSQL", "SQLite")


FTS3 = {"title": "SQLite FTS3 and FTS4 Extensions", "url": "/usr/share/doc/sqlite3/fts3.html", "snippet": ""}
FTS3_QUOTE = (
    "In all of the full-text queries above, the right-hand operand of the MATCH operator is a string consisting "
    "of a single term. In this case, the MATCH expression evaluates to true for all documents that contain one or "
    "more instances of the specified word."
)
PGSZ = "The 'pgsz' Configuration Option This command is used to set the persistent \"pgsz\" option. " + QUOTE


def test_an_fts5_fact_given_to_fts3_and_fts4_goes():
    # as the model wrote it: uncited, so the engine looks for the sources that hold it
    text = (
        "The right-hand operand of the MATCH operator in full-text queries must be a string consisting of a single "
        "term.\n\nIn SQLite FTS3 and FTS4, documents are indexed as fixed-size blobs stored in a database table."
    )
    out = ground_text(text, {"f": FTS5, "t": FTS3}, {"f": [PGSZ], "t": [FTS3_QUOTE]}, NAMES, TOPIC)
    assert "FTS3 and FTS4, documents are indexed" not in out.text


def test_the_variant_the_quote_names_passes():
    text = "In SQLite, FTS5 stores its full-text index as a series of fixed-size blobs in a database table [[src:f]]."
    out = ground_text(text, {"f": FTS5}, {"f": [QUOTE]}, NAMES, TOPIC)
    assert "FTS5 stores its full-text index" in out.text


def test_variants_are_families_of_letters_and_numbers():
    assert numbered_variants("FTS3 and FTS4 differ from FTS5; HTTP2 too") == {
        "fts": {"fts3", "fts4", "fts5"},
        "http": {"http2"},
    }
    quote = "FTS5 is similar to FTS3 and FTS4, but stores its index differently."
    # a quote naming the clause's variant too compares them: nothing moved
    assert sibling_variant("FTS3 and FTS4 store their index differently", [quote]) is None
    assert sibling_variant("SQLite version 3.25.0 added window functions", [QUOTE]) is None
