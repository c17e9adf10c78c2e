"""Which compared options of a branch's question no finding's source documents yet.

A flat run of "How do PostgreSQL and SQLite write an upsert with ON CONFLICT, and how does Python's
sqlite3 module report how many rows a statement changed?" stopped after two steps on three findings:
one part each, so every clause counted as covered, yet all three came from SQLite's and Python's
pages and the report said nothing of PostgreSQL's `INSERT ... ON CONFLICT`. A clause that sets named
options side by side ("How do PostgreSQL and SQLite write an upsert") is answered only when each
option has a finding from a source about it: the option's own documentation (`evidence.page_owners`:
the folder or site of its address), or, for a page no folder or site assigns (a web page), a page
whose title, address or passage names the option. Each such option is then a missing side,
written as the query a researcher would search next: the option and the clause's keywords.

The same holds for a clause about one product (`missing_subjects`): the flat run's "how does
Python's sqlite3 module report how many rows a statement changed" was answered from SQLite's C
interface (`sqlite3_changes()`), and Python's `Cursor.rowcount` was never searched for.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from research_core.planning.question_shape import coordinated_names, keywords, products, question_parts
from research_core.research.part_coverage import finding_texts, still_missing
from research_core.synthesis.evidence import page_owners, source_subjects
from research_core.text.words import content_words, looks_english


def compared_clauses(question: str) -> list[tuple[str, list[str]]]:
    """(clause, the options it sets side by side) for each clause of `question` that joins two or more
    named options; the whole question when it is one clause."""
    out = []
    for part in question_parts(question):
        names = coordinated_names(part)
        if len(names) >= 2:
            out.append((part, names))
    return out


def documented_by(source: Mapping, names: list[str]) -> set[str]:
    """The options (lower-cased) `source` documents: its manual's owners, else the options its title,
    address or passage names."""
    title, url = str(source.get("title") or ""), str(source.get("url") or "")
    owners = page_owners(title, url, names)
    if owners:
        return set(owners)
    return set(source_subjects(title, url, str(source.get("snippet") or ""), names))


def missing_sides(question: str, findings: Iterable[Mapping], sources: Iterable[Mapping]) -> list[str]:
    """For each compared option no finding's source documents, "<option> <the clause's keywords>"
    (none for a non-English question)."""
    if not looks_english(question):
        return []
    by_id = {str(s.get("id")): s for s in sources}
    cited = [by_id[sid] for f in findings for sid in f.get("source_ids") or [] if sid in by_id]
    missing: list[str] = []
    for clause, names in compared_clauses(question):
        documented: set[str] = set()
        for source in cited:
            documented |= documented_by(source, names)
        name_words = {w for n in names for w in content_words(n)}
        rest = " ".join(keywords(clause, name_words))
        missing += [f"{name} {rest}".strip() for name in names if name.lower() not in documented]
    return list(dict.fromkeys(missing))


def clause_products(clause: str) -> list[str]:
    """The products a clause that compares no options names as its subjects."""
    if len(coordinated_names(clause)) >= 2:
        return []
    return products(clause)


def missing_subjects(question: str, findings: Iterable[Mapping], sources: Iterable[Mapping]) -> list[str]:
    """For each product a clause names (`clause_products`) that no finding's source documents,
    "<product> <the clause's keywords>" (none for a non-English question)."""
    if not looks_english(question):
        return []
    by_id = {str(s.get("id")): s for s in sources}
    cited = [by_id[sid] for f in findings for sid in f.get("source_ids") or [] if sid in by_id]
    missing: list[str] = []
    for clause in question_parts(question):
        products = clause_products(clause)
        documented = {name for source in cited for name in documented_by(source, products)}
        rest = " ".join(keywords(clause, {w for n in products for w in content_words(n)}))
        missing += [f"{name} {rest}".strip() for name in products if name.lower() not in documented]
    return list(dict.fromkeys(missing))


def missing_for(question: str, findings: list[dict], sources: Iterable[Mapping]) -> list[str]:
    """What a branch asking `question` has no finding on yet: its uncovered parts and the names no
    finding names (`part_coverage.still_missing`), then its compared options without a source of
    their own (`missing_sides`) and the products its clauses name without one (`missing_subjects`)."""
    sources = list(sources)
    return list(
        dict.fromkeys(
            [
                *still_missing(question, finding_texts(findings)),
                *missing_sides(question, findings, sources),
                *missing_subjects(question, findings, sources),
            ]
        )
    )
