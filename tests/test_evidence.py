"""Evidence gates: relevance of a source, support and attribution of a finding, near-duplicates."""

from __future__ import annotations

from research_core.research.evidence import about_branch, attribute, duplicate_of, source_relevance
from research_core.schemas import Source

SQLITE = Source.make(
    "/usr/share/doc/sqlite3/lockingv3.html",
    "File Locking And Concurrency In SQLite Version 3",
    "SQLite allows many readers but only one writer at a time; a writer takes a RESERVED lock.",
    1.0,
    "library",
)
PG = Source.make(
    "/usr/share/doc/postgresql-doc-15/html/mvcc-intro.html",
    "13.1. Introduction",
    "PostgreSQL provides multiversion concurrency control (MVCC): each transaction sees a snapshot of data.",
    0.9,
    "library",
)
JS = Source.make(
    "library://frameworks.md",
    "Front-end frameworks",
    "React and Vue are JavaScript frameworks for building user interfaces with components.",
    0.8,
    "library",
)


def test_a_source_about_another_subject_is_refused():
    verdict = source_relevance("How does SQLite handle concurrent writers?", JS)
    assert not verdict.ok and "SQLite" in verdict.reason
    assert not source_relevance("How does SQLite handle concurrent writers?", PG).ok
    assert source_relevance("How does SQLite handle concurrent writers?", SQLITE).ok
    # the subject may be named in the address only (a manual's pages rarely repeat the product's name)
    assert source_relevance("How does PostgreSQL control concurrency with snapshots?", PG).ok


def test_without_named_subjects_two_topic_words_are_needed():
    q = "What caused the stock market crash of the late twenties?"
    crash = Source.make("https://x.test/crash", "The crash", "The stock market crash followed speculation.", 1, "web")
    assert source_relevance(q, crash).ok
    assert not source_relevance(q, JS).ok


def test_a_finding_goes_to_the_one_source_that_supports_it():
    claim = "SQLite allows only one writer at a time"
    source, share = attribute(claim, [PG, JS, SQLITE], [PG, JS, SQLITE])
    assert source is SQLITE and share >= 0.5
    # cited to the wrong page: still attributed to the page whose text says it
    assert attribute(claim, [PG], [PG, SQLITE])[0] is SQLITE
    assert attribute("Vaccines were developed in the 18th century", [SQLITE], [SQLITE, PG])[0] is None


def test_a_finding_must_be_about_its_branch_and_near_repeats_merge():
    assert about_branch("SQLite allows one writer at a time", "How does SQLite handle writers?")
    assert not about_branch("React uses a virtual DOM", "How does SQLite handle writers?")
    known = ["SQLite allows many readers but only one writer at a time."]
    assert duplicate_of("SQLite allows many readers but only one writer at one time", known) == known[0]
    assert duplicate_of("PostgreSQL uses MVCC snapshots", known) is None
