"""A retelling keeps its quote's qualifiers: "usually", "most often", "only" limit what a sentence
says, and a sentence that drops one gives way to the quote itself."""

from __future__ import annotations

from research_core.synthesis.grounding import ground_text
from research_core.synthesis.qualifiers import dropped_qualifier

CONTROLS = {
    "title": "12.3. Controlling Text Search",
    "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-controls.html",
}
QUOTE = "Usually, search engines show fragments of the document with marked search terms."


def test_a_retelling_that_drops_usually_gives_way_to_the_quote():
    text = "Search engines show fragments of the document with marked search terms [[src:c]]."
    out = ground_text(text, {"c": CONTROLS}, {"c": [QUOTE]}, ["PostgreSQL"], "How does PostgreSQL show search results?")
    assert out.text == QUOTE.replace(".", " [[src:c]].")
    assert out.quoted == 1


def test_a_qualifier_in_a_part_the_clause_does_not_retell_does_not_count():
    quote = (
        "In PostgreSQL, you can request any of the four standard transaction isolation levels, but internally only "
        "three distinct isolation levels are implemented, i.e., PostgreSQL's Read Uncommitted mode behaves like Read "
        "Committed."
    )
    assert dropped_qualifier("PostgreSQL's Read Uncommitted mode behaves like Read Committed", [quote]) is None
    dropped = dropped_qualifier("PostgreSQL implements three distinct isolation levels internally", [quote])
    assert dropped == "drops 'only' from its quote"


def test_a_retelling_that_keeps_the_qualifier_or_says_something_else_is_left_alone():
    assert dropped_qualifier("Search engines usually show fragments of the document with marked terms", [QUOTE]) is None
    assert dropped_qualifier("PostgreSQL ranks documents with ts_rank", [QUOTE]) is None


ISOLATION = {
    "title": "13.2. Transaction Isolation",
    "url": "/usr/share/doc/postgresql-doc-15/html/transaction-iso.html",
}
LEVELS = (
    "In PostgreSQL, you can request any of the four standard transaction isolation levels, but internally only "
    "three distinct isolation levels are implemented, i.e., PostgreSQL's Read Uncommitted mode behaves like Read "
    "Committed."
)


def test_a_word_for_word_part_of_the_quote_keeps_what_it_says():
    # the clause before "but internally only three ..." is the page's own words: nothing is dropped from it
    assert (
        dropped_qualifier(
            "In PostgreSQL, you can request any of the four standard transaction isolation levels", [LEVELS]
        )
        is None
    )
    # a hedge in front of the words a verbatim part repeats is still dropped
    assert dropped_qualifier("search engines show fragments of the document with marked search terms", [QUOTE]) == (
        "drops 'usually' from its quote"
    )


def test_the_quote_itself_stays_in_the_report():
    # round N's PostgreSQL branch lost its one sentence on the isolation levels this way
    text = f"{LEVELS} [[src:i]]"
    out = ground_text(
        text, {"i": ISOLATION}, {"i": [LEVELS]}, ["PostgreSQL"], "What isolation levels does PostgreSQL offer?"
    )
    assert (
        "only three distinct isolation levels" in out.text and "four standard transaction isolation levels" in out.text
    )
    assert not out.removed
