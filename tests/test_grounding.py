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
