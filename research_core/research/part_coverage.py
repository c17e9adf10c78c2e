"""Which parts of a branch's question its findings do not touch yet.

A branch researching "What isolation levels does PostgreSQL offer, how does SQLite isolate
transactions, and which settings of Python's sqlite3 module control them?" (a flat run of a
multi-part question) is not done when two confident findings about PostgreSQL are in: two
thirds of the question are still open. Each clause of the question is a part; a finding touches
a part when it shares one of the part's own topic words (those the other parts do not share, so
"transactions" in every clause does not count). Each part needs a finding of its own: one
finding that names words of all three clauses answers at most one of them, so parts are
matched to distinct findings and the parts left unmatched are uncovered. A one-clause question
that compares named options ("How do PostgreSQL and SQLite handle concurrent writes?") has one
part per option: a comparison resting on findings about one of them is not done.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from research_core.planning.question_shape import (
    coordinated_names,
    frame_head,
    question_parts,
    subjects,
    topic_words,
)
from research_core.text.terms import code_names, term_in
from research_core.text.words import content_words, looks_english


def distinctive_words(parts: list[str]) -> list[set[str]]:
    """Each part's topic words less those every part shares (all of them when nothing is left)."""
    words = [topic_words(p) for p in parts]
    shared = set.intersection(*words) if words else set()
    return [(w - shared) or w for w in words]


def match_parts(touches: list[set[int]]) -> dict[int, int]:
    """A largest matching of parts to distinct findings: part index -> finding index.

    `touches[i]` holds the findings that touch part i (augmenting paths; parts and findings are few).
    """
    owner: dict[int, int] = {}  # finding -> part

    def claim(part: int, seen: set[int]) -> bool:
        for finding in sorted(touches[part]):
            if finding in seen:
                continue
            seen.add(finding)
            if finding not in owner or claim(owner[finding], seen):
                owner[finding] = part
                return True
        return False

    for part in range(len(touches)):
        claim(part, set())
    return {part: finding for finding, part in owner.items()}


def uncovered_parts(question: str, findings: Iterable[str]) -> list[str]:
    """The clauses of `question` without a finding of their own (none for a one-part or non-English question).

    A part is covered when a finding touching it can be matched to it alone: three parts need at
    least three findings, and a finding that touches every part covers only one.
    """
    parts = question_parts(question)
    head = frame_head(question)
    if head and len(parts) > 2 and parts[0] == head.strip(" ,.;:?"):
        parts = parts[1:]  # the head frames the clauses after it; it is not a part to answer on its own
    if len(parts) < 2:
        # one clause comparing named options ("How do PostgreSQL and SQLite handle locking?"): each option is a part
        parts = coordinated_names(question) or parts
    if len(parts) < 2 or not looks_english(question):
        return []
    words = [content_words(f) for f in findings]
    owns = distinctive_words(parts)
    touches = [{i for i, w in enumerate(words) if own & w} for own in owns]
    matched = match_parts(touches)
    return [part for i, (part, own) in enumerate(zip(parts, owns, strict=True)) if own and i not in matched]


def unquoted_names(question: str, findings: Iterable[str]) -> list[str]:
    """The functions, options and directives the question names (`text.terms.code_names`:
    "KeepAliveTimeout", "fs.readFile") that no finding names yet.

    "What is the default KeepAliveTimeout?" is not answered by two confident findings about
    HostnameLookups: the branch keeps searching while its budget allows. A system the question is about
    is not such a name though written like one ("PostgreSQL"): its findings come from its manual and
    seldom repeat its name ("Node.js" either: a branch on child_process.spawn searched "Node.js" alone
    for a finding naming it); whether each compared system has evidence is `side_coverage`'s rule.
    """
    texts = " ".join(findings)
    systems = {s for s in subjects(question) if _PRODUCT.match(s)}
    return sorted(
        name
        for name in code_names(question)
        if name not in systems and not _DOTTED_PRODUCT.match(name) and not term_in(name, texts)
    )


# a capitalised word run into an acronym names a product, not code: PostgreSQL, MySQL, MongoDB
_PRODUCT = re.compile(r"^[A-Z][a-z]+[A-Z]{2,}$")
# so does a capitalised word with a short suffix after a dot: Node.js, Vue.js
_DOTTED_PRODUCT = re.compile(r"^[A-Z][a-z]+\.[a-z]{1,3}$")


def finding_texts(findings: Iterable[dict]) -> list[str]:
    """Each finding's text with its quote: the words a part or a name is looked for in."""
    return [f"{f.get('text') or ''} {f.get('quote') or ''}" for f in findings]


def still_missing(question: str, texts: list[str]) -> list[str]:
    """What the branch has no finding on yet: its uncovered parts, then the names no finding names."""
    return [*uncovered_parts(question, texts), *unquoted_names(question, texts)]
