"""A branch's first searches, written by code from its question (no model call).

On a CPU, a small local model spends half a minute reading the query-planning prompt only to
rephrase the sub-question. The first iteration has nothing to aim at yet, so code writes its
queries: the question itself, and for a question joining named options ("... in PostgreSQL
and SQLite?") one keyword query per option, so each of them gets its own results instead of
the better-documented one taking every slot. Later iterations, which aim at what is still
missing, ask the model; when the model only repeats searches already made, `fresh_queries`
writes new ones from the question's parts and keywords instead of searching the same words again.
"""

from __future__ import annotations

from research_core.planning.question_shape import coordinated_names, keywords, subjects
from research_core.text.words import content_words, folded

MAX_FIRST_QUERIES = 3
MAX_QUERY_CHARS = 200
# a keyword query of fewer words than this searches a name alone
MIN_KEYWORD_QUERY_WORDS = 2


def first_queries(topic: str) -> list[str]:
    """The question, then one "<option> <keywords>" query per option when it joins named options ("A
    and B"); otherwise its keywords without the question's frame ("PostgreSQL window functions" for
    "How do PostgreSQL support window functions?", whose "support" and "Windows" find the Supported
    Platforms and Installation on Windows pages before the manual's window-function chapters)."""
    text = " ".join(topic.split())
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
    """Up to `limit` queries not searched yet: the parts still `missing`, then the topic's keywords,
    then those keywords less one word at a time (broader), always keeping the names the topic is
    about. Empty when every candidate was used."""
    seen = {folded(q) for q in used}
    text = " ".join(topic.split())
    names = {w for n in subjects(text) for w in content_words(n)}
    words = keywords(text, set())
    candidates = [*(missing or []), " ".join(words)]
    if len(words) > 2:
        broader = [w for w in reversed(words) if not content_words(w) & names]
        candidates += [" ".join(w for w in words if w != dropped) for dropped in broader]
    fresh: list[str] = []
    for query in candidates:
        query = " ".join(query.split())[:MAX_QUERY_CHARS]
        if query and folded(query) not in seen:
            seen.add(folded(query))
            fresh.append(query)
        if len(fresh) == limit:
            break
    return fresh
