"""The direct answer the engine picks from the branch answers when the model's overview gives none."""

from __future__ import annotations

from research_core.synthesis.lead import MAX_LEAD_SENTENCES, cited_sentences, picked_lead

QUESTION = "Compare full-text search in PostgreSQL and SQLite: how are documents indexed and how are results ranked?"

POSTGRES = (
    "The tsvector type stores a sorted list of distinct lexemes [[src:a1]].\n\n"
    "A GIN index is the preferred text search index type for documents [[src:a2]]. "
    "Ranking attempts to measure how relevant documents are to a particular query [[src:a3]].\n\n"
    "This answer rests on a single source."
)
SQLITE = (
    "```sql\nCREATE VIRTUAL TABLE email USING fts5(sender, body); -- documents indexed [[src:b9]]\n```\n"
    "(code as in [[src:b1]])\n\n"
    "**Ranking:**\n"
    "- FTS5 ranks results with the built-in bm25 function to order documents by relevance [[src:b2]].\n"
    "- The MATCH operator may be used with a virtual table [[src:b1]]."
)


def test_only_cited_sentences_outside_code_labels_and_notes_can_be_picked():
    assert cited_sentences(SQLITE) == [
        "FTS5 ranks results with the built-in bm25 function to order documents by relevance [[src:b2]].",
        "The MATCH operator may be used with a virtual table [[src:b1]].",
    ]
    assert "This answer rests on a single source." not in cited_sentences(POSTGRES)


def test_each_branch_gives_its_sentence_most_about_the_question_in_order():
    lead = picked_lead(QUESTION, [("How are documents indexed?", POSTGRES), ("How does SQLite rank?", SQLITE)])
    assert lead == (
        "A GIN index is the preferred text search index type for documents [[src:a2]]. "
        "FTS5 ranks results with the built-in bm25 function to order documents by relevance [[src:b2]]."
    )


def test_a_branch_with_nothing_about_the_question_and_a_repeated_sentence_give_nothing():
    off = "The project was started in 1996 by a team of volunteers [[src:c1]]."
    same = "A GIN index is the preferred text search index type for documents [[src:d4]]."
    lead = picked_lead(QUESTION, [("Who wrote it?", off), ("Index types?", POSTGRES), ("Index types again?", same)])
    assert lead == "A GIN index is the preferred text search index type for documents [[src:a2]]."
    assert picked_lead(QUESTION, [("Who wrote it?", "No source answered this part.")]) == ""


def test_the_lead_stays_short_however_many_branches_answered():
    said = [
        "Documents are indexed with a GIN index on a tsvector column",
        "Results are ranked by ts_rank, which counts how often query terms occur",
        "SQLite indexes documents in an FTS5 virtual table",
        "SQLite ranks results with the bm25 function",
        "Both parse the search query into terms before matching documents",
        "Full-text search ignores stop words in documents",
    ]
    branches = [(f"Part {i}?", f"{what} [[src:e{i}]].") for i, what in enumerate(said)]
    assert len(picked_lead(QUESTION, branches).split("[[src:")) - 1 == MAX_LEAD_SENTENCES


def test_a_quote_the_answer_left_out_is_picked_only_when_the_answer_says_nothing_on_the_question():
    answer = (
        "SQLite's FTS5 module indexes documents in a virtual table [[src:f1]].\n\n"
        "Also found:\n- Allowed, but not in PG Allowed, but not in PG: full-text search documents indexed and "
        "ranked in PostgreSQL and SQLite [[src:f2]]."
    )
    assert picked_lead(QUESTION, [("How does SQLite index documents?", answer)]) == (
        "SQLite's FTS5 module indexes documents in a virtual table [[src:f1]]."
    )
    only_listed = "Also found:\n- FTS5 ranks results with the built-in bm25 function [[src:f3]]."
    assert picked_lead(QUESTION, [("How does SQLite rank results?", only_listed)]) == (
        "FTS5 ranks results with the built-in bm25 function [[src:f3]]."
    )


def test_a_sentence_leaning_on_the_one_before_it_does_not_open_the_report():
    question = "What transaction isolation levels does PostgreSQL offer, and how does SQLite isolate transactions?"
    levels = (
        "1. **Read Committed**: This is the default isolation level in PostgreSQL [[src:a1]].\n"
        "2. **Serializable**: Serializable transactions are just Repeatable Read transactions which add "
        "nonblocking monitoring for dangerous patterns of read/write conflicts [[src:a2]]."
    )
    lead = picked_lead(question, [("What transaction isolation levels does PostgreSQL offer?", levels)])
    assert not lead.startswith("This is the default isolation level")
    assert lead.startswith("Serializable transactions are just Repeatable Read transactions")
