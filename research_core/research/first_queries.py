"""A branch's first searches, written by code from its question (no model call).

On a CPU, a small local model spends half a minute reading the query-planning prompt only to
rephrase the sub-question. The first iteration has nothing to aim at yet, so code writes its
queries: the question itself, and for a question joining named options ("... in PostgreSQL
and SQLite?") one keyword query per option, so each of them gets its own results instead of
the better-documented one taking every slot; a question of several clauses gets each clause's
keyword queries, so one clause's words do not crowd another's pages out. Later iterations,
which aim at what is still missing, ask the model; when the model only repeats searches already
made, `fresh_queries` writes new ones from the question's parts and keywords instead of
searching the same words again.
"""

from __future__ import annotations

import re

from research_core.planning.question_shape import coordinated_names, keywords, question_parts, stand_alone, subjects
from research_core.text.support import STEM_LETTERS
from research_core.text.words import content_words, folded

MAX_FIRST_QUERIES = 3
# the first queries of a question of several clauses: the question and its clauses' keyword queries
MAX_MULTI_PART_QUERIES = 6
MAX_QUERY_CHARS = 200
# a keyword query of fewer words than this searches a name alone
MIN_KEYWORD_QUERY_WORDS = 2
# a pronoun by which a clause refers back to what an earlier clause asked about
_BACK_REFERENCE = re.compile(r"\b(?:they|them|their|it|its|these|those)\b", re.IGNORECASE)


def first_queries(topic: str) -> list[str]:
    """The question, then its keyword queries (`clause_queries`); for a question of several clauses,
    the keyword queries of each clause, made to stand alone (`stand_alone`), up to
    `MAX_MULTI_PART_QUERIES`: the words of "..., and how does Python's sqlite3 module report how many
    rows a statement changed?" mixed into "PostgreSQL write upsert CONFLICT" find neither page."""
    text = " ".join(topic.split())
    parts = question_parts(text)
    if len(parts) < 2:
        return clause_queries(text)
    queries = [text[:MAX_QUERY_CHARS]]
    for earlier, part in zip(["", *parts], parts, strict=False):
        own = clause_queries(stand_alone(with_antecedent(part, earlier), text))
        queries += own[1:] or own  # a clause of one keyword ("how does autovacuum work") is searched as written
    unique: dict[str, str] = {}
    for query in queries:
        unique.setdefault(folded(query), query)
    return list(unique.values())[:MAX_MULTI_PART_QUERIES]


def with_antecedent(part: str, earlier: str) -> str:
    """The clause `part`, with the topic words of the clause before it (`earlier`) added when it names a
    subject but refers back to that clause's topic by a pronoun: "what must be done in SQLite before
    they are enforced" was searched as "must done SQLite before enforced", which finds SQLite's file
    locking and virtual table pages, not its foreign keys. A clause naming no subject borrows the
    question's names instead (`stand_alone`)."""
    if not earlier or not _BACK_REFERENCE.search(part) or not subjects(part):
        return part
    names = {w for n in subjects(earlier) for w in content_words(n)}
    have = {w[:STEM_LETTERS] for w in content_words(part)}  # "enforce" is had in "enforced"
    extra = [w for w in keywords(earlier, names) if not {c[:STEM_LETTERS] for c in content_words(w)} & have]
    return f"{part} ({' '.join(extra)})" if extra else part


def clause_queries(text: str) -> list[str]:
    """The clause, then one "<option> <keywords>" query per option when it joins named options ("A
    and B"); otherwise its keywords without the question's frame ("PostgreSQL window functions" for
    "How do PostgreSQL support window functions?", whose "support" and "Windows" find the Supported
    Platforms and Installation on Windows pages before the manual's window-function chapters)."""
    queries = [text[:MAX_QUERY_CHARS]]
    names = coordinated_names(text)
    if len(names) < 2:
        bare = " ".join(keywords(text, set()))[:MAX_QUERY_CHARS]
        if len(bare.split()) >= MIN_KEYWORD_QUERY_WORDS and folded(bare) != folded(text):
            queries.append(bare)
        return queries
    name_words = {w for n in names for w in content_words(n)}
    rest = " ".join(keywords(text, name_words))
    for name in names[: MAX_FIRST_QUERIES - 1]:
        queries.append(f"{name} {rest}".strip()[:MAX_QUERY_CHARS])
    return queries


def fresh_queries(topic: str, used: list[str], missing: list[str] | None = None, limit: int = 2) -> list[str]:
    """Up to `limit` queries not searched yet: the parts still `missing`, then each of them less one
    word at a time (broader), then the topic's keywords and those less one word at a time, always
    keeping the names the topic is about. A missing part searched already ("PostgreSQL write upsert
    CONFLICT", the first step's query for that side) is searched broader before the whole topic's
    words, which bring back the pages of the side already documented. Empty when every candidate was used."""
    seen = {folded(q) for q in used}
    text = " ".join(topic.split())
    names = {w for n in subjects(text) for w in content_words(n)}
    words = keywords(text, set())
    candidates = [*(missing or [])]
    for part in missing or []:
        candidates += _broader(part.split(), names)
    candidates += [" ".join(words), *_broader(words, names)]
    fresh: list[str] = []
    for query in candidates:
        query = " ".join(query.split())[:MAX_QUERY_CHARS]
        if query and folded(query) not in seen:
            seen.add(folded(query))
            fresh.append(query)
        if len(fresh) == limit:
            break
    return fresh


def _broader(words: list[str], names: set[str]) -> list[str]:
    """`words` less one of them at a time, last first, never a word of `names`; none for two words or fewer."""
    if len(words) <= 2:
        return []
    droppable = [w for w in reversed(words) if not content_words(w) & names]
    return [" ".join(w for w in words if w != dropped) for dropped in droppable]
