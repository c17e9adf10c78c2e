"""A sentence may not graft a phrase one quote says of its own subject onto another quote's subject."""

from research_core.synthesis.grafted_phrase import grafted_phrase
from research_core.synthesis.grounding import ground_text

ISOLATION = {
    "title": "13.2. Transaction Isolation",
    "url": "/usr/share/doc/postgresql-doc-15/html/transaction-iso.html",
    "snippet": "",
}
CONSISTENCY = {
    "title": "13.4. Data Consistency Checks at the Application Level",
    "url": "/usr/share/doc/postgresql-doc-15/html/applevel-consistency.html",
    "snippet": "",
}
READ_COMMITTED = (
    "Read Committed is the default isolation level in PostgreSQL. When a transaction uses this isolation level, a "
    "SELECT query (without a FOR UPDATE/SHARE clause) sees only data committed before the query began; it never "
    "sees either uncommitted data or changes committed during query execution by concurrent transactions."
)
SERIALIZABLE = (
    "If the Serializable transaction isolation level is used for all writes and for all reads which need a "
    "consistent view of the data, no other effort is required to ensure consistency."
)
TOPIC = "What transaction isolation levels does PostgreSQL offer?"
NAMES = ("PostgreSQL",)


def test_a_phrase_from_a_quote_about_another_level_is_not_given_to_this_one():
    text = (
        "Read Committed is the default isolation level in PostgreSQL and provides a consistent view of the data "
        "for each transaction [[src:a]] [[src:b]]."
    )
    out = ground_text(
        text, {"a": ISOLATION, "b": CONSISTENCY}, {"a": [READ_COMMITTED], "b": [SERIALIZABLE]}, NAMES, TOPIC
    )
    assert "consistent view of the data for each transaction" not in out.text
    # a quoted sentence, cited to its own page alone, stands in its place
    assert out.quoted == 1
    assert out.text.rstrip().endswith(("[[src:a]].", "[[src:b]].")) and out.text.count("[[src:") == 1


def test_neighbouring_sentences_of_one_quote_may_be_joined():
    quote = (
        "Window function support was first added to SQLite with release version 3.25.0 (2018-09-15). The SQLite "
        "developers used the PostgreSQL window function documentation as their primary reference."
    )
    other = "SQLite features a set of built-in window functions based on those supported by PostgreSQL."
    clause = (
        "They were first added to SQLite with release version 3.25.0 (2018-09-15), using the PostgreSQL window "
        "function documentation as their primary reference"
    )
    assert grafted_phrase(clause, [quote, other]) is None


def test_a_retelling_that_adds_nothing_another_quote_holds_passes():
    clause = "Read Committed is the default isolation level in PostgreSQL, and a query sees only committed data"
    assert grafted_phrase(clause, [READ_COMMITTED, SERIALIZABLE]) is None
    assert grafted_phrase("Read Committed provides a consistent view of the data", [READ_COMMITTED]) is None


def test_the_refusal_names_the_grafted_words():
    clause = "Read Committed is the default isolation level in PostgreSQL and provides a consistent view"
    assert grafted_phrase(clause, [READ_COMMITTED, SERIALIZABLE]) == (
        "grafts 'consistent view' from another quote onto the one it retells"
    )
