"""A sentence that says its fact of both subjects without naming them needs a source about each."""

from research_core.synthesis.both_sides import speaks_of_both
from research_core.synthesis.grounding import ground_text

INTRO = {
    "title": "12.1. Introduction",
    "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-intro.html",
    "snippet": "",
}
FTS5 = {"title": "SQLite FTS5 Extension", "url": "/usr/share/doc/sqlite3/fts5.html", "snippet": ""}
MORE_THINGS = (
    "Full text searching in PostgreSQL is based on the match operator @@. As mentioned before, full text search "
    "functionality includes the ability to do many more things: skip indexing certain words (stop words), "
    "process synonyms, and use sophisticated parsing, e.g., parse based on more than just white space."
)
SQLITE_STOP = (
    "FTS5 supports skip indexing certain words such as stop words with its tokenizers, and it can process "
    "synonyms with a custom tokenizer."
)
TOPIC = "Compare full-text search in PostgreSQL and SQLite: how are documents indexed and ranked?"
NAMES = ("PostgreSQL", "SQLite")
SENTENCE = (
    "Both support skip indexing certain words (stop words), process synonyms, and use sophisticated parsing, "
    "e.g., parse based on more than just white space"
)


def test_both_with_a_verb_cited_to_one_systems_page_goes():
    out = ground_text(f"{SENTENCE} [[src:a]].", {"a": INTRO}, {"a": [MORE_THINGS]}, NAMES, TOPIC)
    assert "Both support" not in out.text


def test_both_with_a_verb_cited_to_a_page_about_each_stays():
    text = "Both support skip indexing certain words (stop words) and process synonyms [[src:a]] [[src:b]]."
    out = ground_text(text, {"a": INTRO, "b": FTS5}, {"a": [MORE_THINGS], "b": [SQLITE_STOP]}, NAMES, TOPIC)
    assert "Both support skip indexing certain words" in out.text


def test_which_sentences_speak_of_both_subjects():
    assert speaks_of_both("Both support simple text search.")
    assert speaks_of_both("Both are embedded in the application.")
    assert speaks_of_both("Both of them use a write-ahead log.")
    assert speaks_of_both("In both systems, the index is an inverted index.")
    # "Both" naming its own pair, or a plural noun after it
    assert not speaks_of_both("Both FTS3 and FTS4 use the MATCH operator.")
    assert not speaks_of_both("Both the parser and the planner read the query.")
    assert not speaks_of_both("Both functions return a tsvector.")
    assert not speaks_of_both("In both cases, requests are sent over one connection.")
    assert not speaks_of_both("The two tables both support triggers.")
