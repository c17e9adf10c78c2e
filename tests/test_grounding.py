"""Grounded writing: statements keep only supporting citations, get one attached, or are removed."""

from __future__ import annotations

from research_core.synthesis.grounding import ground_text, is_claim

SOURCES = {
    "aaa111": {"title": "SQLite locking", "snippet": "SQLite allows many readers but only one writer at a time."},
    "bbb222": {"title": "PostgreSQL MVCC", "snippet": "PostgreSQL uses multiversion concurrency control snapshots."},
}


def test_every_statement_is_counted_and_unsupported_ones_are_removed():
    text = (
        "SQLite allows only one writer at a time [[src:bbb222]]. "
        "PostgreSQL uses multiversion concurrency control snapshots. "
        "The moon is made of green cheese and tastes good.\n\n"
        "Caveats: none."
    )
    out = ground_text(text, SOURCES)
    assert out.statements == 3 and out.supported == 2
    assert "green cheese" not in out.text and out.removed == ["The moon is made of green cheese and tastes good."]
    assert "SQLite allows only one writer at a time [[src:aaa111]]." in out.text  # re-attributed to its page
    assert "snapshots [[src:bbb222]]." in out.text  # attached by the engine
    assert "Caveats: none." in out.text


def test_headings_labels_hedges_and_limitations_are_not_claims():
    assert not is_claim("**Verdict: validated** (confidence 7/10)")
    assert not is_claim("No evidence found for the licensing costs of either option.")
    out = ground_text("## Limitations\nThe research did not look at the pricing of hosted offerings.", SOURCES)
    assert out.statements == 0 and "pricing" in out.text


def test_a_citation_after_the_full_stop_stays_with_its_sentence():
    out = ground_text("- SQLite allows many readers but only one writer. [[src:aaa111]]", SOURCES)
    assert out.text == "- SQLite allows many readers but only one writer [[src:aaa111]]."
    assert out.supported == 1 and out.attached == 0


def test_a_sentence_with_an_abbreviation_is_one_statement_with_one_citation():
    """Round QQ's servers re-run printed "For threaded and hybrid servers (e.g [5]. event or worker),
    MaxRequestWorkers restricts ...": the report was cut into sentences at "e.g."."""
    mpm = {
        "ccc333": {
            "title": "Apache MPM Common Directives",
            "snippet": "For threaded and hybrid servers (e.g. event or worker), MaxRequestWorkers restricts the "
            "total number of threads that will be available to serve clients.",
        }
    }
    text = (
        "- For threaded and hybrid servers (e.g. event or worker), MaxRequestWorkers restricts the total number "
        "of threads that will be available to serve clients. [[src:ccc333]]"
    )
    out = ground_text(text, mpm)
    assert out.statements == 1 and out.supported == 1
    assert "(e.g. event or worker)" in out.text and out.text.endswith("serve clients [[src:ccc333]].")


def test_a_comparison_is_supported_by_its_two_sources_together():
    # the claim keeps the quote's "only": dropping it is refused (`synthesis.qualifiers`)
    text = "SQLite allows many readers and only one writer, while PostgreSQL uses multiversion concurrency snapshots."
    out = ground_text(text, SOURCES)
    assert out.supported == 1 and "[[src:aaa111]]" in out.text and "[[src:bbb222]]" in out.text


def test_a_code_block_no_source_shows_is_removed_whole_and_counted():
    text = (
        "Use a window function to rank rows [[src:a1]].\n"
        "```sql\nSELECT rank() OVER (PARTITION BY city) FROM moon_bases;\n```\nDone."
    )
    out = ground_text(text, {"a1": {"title": "Window functions", "snippet": "Use a window function to rank rows."}})
    assert "moon_bases" not in out.text and "```" not in out.text
    assert out.statements == 2 and out.supported == 1


def test_a_code_block_a_source_shows_is_kept_closed_and_cited():
    source = {"title": "VACUUM", "snippet": "Run VACUUM FULL on the table to reclaim space: VACUUM FULL mytable;"}
    out = ground_text("Reclaim disk space with a full vacuum [[src:v1]].\n```sql\nVACUUM FULL mytable;", {"v1": source})
    assert "VACUUM FULL mytable;\n```\n(code as in [[src:v1]])" in out.text
    assert out.supported == out.statements == 2


TRANSACTION_ISOLATION = {
    "tx": {
        "title": "13.2. Transaction Isolation",
        "url": "/usr/share/doc/postgresql-doc-15/html/transaction-iso.html",
        "snippet": "",
    }
}
TX_QUOTES = {
    "tx": [
        "Read Committed is the default isolation level in PostgreSQL. When a transaction uses this isolation "
        "level, a SELECT query sees only data committed before the query began."
    ]
}


def test_a_retelling_that_adds_what_its_quote_does_not_say_gives_way_to_the_quote():
    # half its words are in the quote, the claim it adds ("a consistent view for all transactions") is not
    text = (
        "Read Committed is the default isolation level in PostgreSQL and provides a consistent view of the "
        "database for all transactions [[src:tx]]."
    )
    out = ground_text(text, TRANSACTION_ISOLATION, TX_QUOTES, ("PostgreSQL",), "PostgreSQL transaction isolation")
    assert "consistent view" not in out.text
    assert out.text == "Read Committed is the default isolation level in PostgreSQL [[src:tx]]."
    assert out.quoted == 1 and out.supported == 1 and out.removed == []


def test_a_retelling_that_holds_only_two_thirds_of_its_words_and_no_quote_stands_for_is_removed():
    # the only quote leans on a sentence before it ("This level"): it cannot stand alone
    quotes = {"tx": ["This level is the default in PostgreSQL and sees only data committed before the query began."]}
    text = (
        "PostgreSQL's default level sees only data committed before the query began, giving every transaction "
        "one consistent view [[src:tx]]."
    )
    out = ground_text(text, TRANSACTION_ISOLATION, quotes, ("PostgreSQL",), "PostgreSQL transaction isolation")
    assert out.text == "" and out.quoted == 0 and len(out.removed) == 1 and "under 75%" in out.reasons[0]


def test_a_quote_about_another_subject_does_not_stand_in_for_a_statement():
    # the statement is about SQLite; the only quote is from PostgreSQL's page
    text = "SQLite uses Read Committed as the default isolation level for every query [[src:tx]]."
    out = ground_text(
        text, TRANSACTION_ISOLATION, TX_QUOTES, ("PostgreSQL", "SQLite"), "PostgreSQL and SQLite transaction isolation"
    )
    assert out.text == "" and out.quoted == 0


def test_a_version_note_copied_from_a_manual_is_not_a_statement():
    sources = {"py": {"title": "sqlite3 — Python", "snippet": "New in version 3.2. Changed in version 3.6."}}
    out = ground_text("- New in version 3.2 [[src:py]].", sources)
    assert out.text == "" and out.supported == 0 and "version note" in out.reasons[0]


def test_a_lead_in_that_leads_nowhere_and_a_broken_off_fragment_are_dropped():
    text = (
        "## How the parts fit together\n\n"
        "SQLite allows many readers but only one writer at a time [[src:aaa111]]. The possible values are:\n\n"
        "PostgreSQL uses multiversion concurrency control snapshots [[src:bbb222]].\n\n"
        "## Conclusion\n\nThe possible values are:\n\nThe"
    )
    out = ground_text(text, SOURCES)
    assert "possible values" not in out.text and not out.text.endswith("The")
    assert "## Conclusion" not in out.text  # nothing is left under it
    assert "one writer at a time [[src:aaa111]]." in out.text and "snapshots [[src:bbb222]]." in out.text


def test_a_lead_in_followed_by_its_list_stays():
    text = "The isolation levels are:\n\n- Serializable\n- Read Committed"
    assert ground_text(text, SOURCES).text == text


def test_a_breadcrumb_trail_in_a_findings_list_is_not_a_statement():
    sources = {"a": {"title": "core", "snippet": "Apache HTTP Server Version 2.4 Apache > HTTP Server > Documentation"}}
    out = ground_text("- Apache HTTP Server Version 2.4 Apache > HTTP Server > Documentation [[src:a]]", sources)
    assert out.text == "" and "navigation" in out.reasons[0]


def test_a_list_item_that_only_leads_into_a_removed_list_is_dropped():
    text = "1. SQLite allows many readers but only one writer at a time [[src:aaa111]].\n2. The options are:\n\nDone."
    out = ground_text(text, SOURCES)
    assert "options are" not in out.text and "1. SQLite allows many readers" in out.text
    kept = "- The options include:\n  - Serializable\n  - Read Committed"
    assert ground_text(kept, SOURCES).text == kept


def test_numbered_labels_nothing_is_left_under_are_dropped():
    text = (
        "1. **Definition**: SQLite allows many readers but only one writer at a time [[src:aaa111]].\n\n"
        "2. **Syntax**:\n\n3. **Example**:\n\nAlso found:\n- PostgreSQL uses multiversion concurrency control "
        "snapshots [[src:bbb222]]."
    )
    out = ground_text(text, SOURCES)
    assert "**Syntax**" not in out.text and "**Example**" not in out.text
    assert "1. **Definition**: SQLite allows" in out.text and "Also found:" in out.text


def test_a_statement_the_model_stopped_in_the_middle_of_gives_way_to_its_quote():
    # every word of the cut sentence is in the quote, but it stops before saying what the functions are
    sources = {
        "c": {"title": "12.1. Introduction", "url": "/usr/share/doc/postgresql-doc-15/html/textsearch-intro.html"}
    }
    quotes = {
        "c": [
            "PostgreSQL creates a tsvector from a document and a tsquery from a user query using the functions "
            "to_tsvector and to_tsquery."
        ]
    }
    cut = "PostgreSQL creates a tsvector from a document and a tsquery from a user query using [[src:c]]."
    out = ground_text(
        cut, sources, quotes, ("PostgreSQL",), "How does PostgreSQL index documents for full-text search?"
    )
    assert "user query using [[src:c]]" not in out.text
    assert "using the functions to_tsvector and to_tsquery [[src:c]]." in out.text


def test_citations_on_their_own_line_cite_the_statement_above_and_never_stand_alone():
    from research_core.synthesis.grounding import ground_text

    pg = {"title": "8.1. Numeric Types", "url": "/usr/share/doc/postgresql-doc-15/html/datatype-numeric.html"}
    quote = (
        "The data types smallserial, serial and bigserial are not true types, but merely a notational convenience "
        "for creating unique identifier columns."
    )
    text = (
        "The difference between SERIAL and identity columns is as follows:\n\n"
        "- **SERIAL**: The data types smallserial, serial and bigserial are not true types, but merely a notational "
        "convenience for creating unique identifier columns.\n  - [[src:a1]]\n\n"
        "- **IDENTITY Column**: An identity column can be defined with a start value and an increment step.\n"
        "  - [[src:a1]]\n"
    )
    out = ground_text(text, {"a1": pg}, {"a1": [quote]}, ("PostgreSQL", "SQLite"), "SERIAL and identity columns")
    assert "notational convenience for creating unique identifier columns [[src:a1]]." in out.text
    # the identity statement is not on the page: it goes, and so does the marker written under it
    assert "start value" not in out.text
    assert not any(line.strip() in {"- [[src:a1]]", "[[src:a1]]"} for line in out.text.splitlines())


def test_a_code_block_opened_at_the_end_of_a_label_is_read_as_code_and_leaves_no_fence_behind():
    # round Z's flat m3 draft: each "- **Example:** ```sql" block was unsupported; the report showed
    # "**PostgreSQL:**" and "- **Example:** ```sql" three times, and lost the SQLite labels' text
    text = (
        "### Queries\n\n**PostgreSQL:**\n"
        "- **Example:** ```sql\n  SELECT * FROM t WHERE MATCH(c) AGAINST ('x');\n  ```\n\n"
        "**SQLite:**\n- SQLite allows many readers but only one writer at a time [[src:aaa111]].\n"
        "- **Example:** ```sql\n  SELECT * FROM t WHERE c MATCH 'x';\n  ```\n"
    )
    out = ground_text(text, SOURCES)
    assert "```" not in out.text and "AGAINST" not in out.text
    assert "**PostgreSQL:**" not in out.text and "Example" not in out.text
    assert "**SQLite:**\n- SQLite allows many readers but only one writer at a time [[src:aaa111]]." in out.text


def test_a_reference_list_the_model_wrote_is_left_out():
    text = (
        "SQLite allows many readers but only one writer at a time [[src:aaa111]].\n\n**References:**\n"
        "[[src:aaa111]] SQLite locking\n[[src:bbb222]] PostgreSQL MVCC\n"
    )
    out = ground_text(text, SOURCES)
    assert out.text == "SQLite allows many readers but only one writer at a time [[src:aaa111]]."
