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


def test_a_comparison_is_supported_by_its_two_sources_together():
    text = "SQLite readers and writer versus PostgreSQL multiversion snapshots, decided differently here."
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
