"""A branch's first searches, written by code from its question (no model call).

On a CPU, a small local model spends half a minute reading the query-planning prompt only to
rephrase the sub-question. The first iteration has nothing to aim at yet, so code writes its
queries: the question itself, and for a question joining named options ("... in PostgreSQL
and SQLite?") one keyword query per option, so each of them gets its own results instead of
the better-documented one taking every slot. Later iterations, which aim at what is still
missing, ask the model.
"""

from __future__ import annotations

from research_core.planning.question_shape import coordinated_names, keywords
from research_core.text.words import content_words

MAX_FIRST_QUERIES = 3
MAX_QUERY_CHARS = 200


def first_queries(topic: str) -> list[str]:
    """The question, then one "<option> <keywords>" query per option when it joins named options ("A and B")."""
    text = " ".join(topic.split())
    queries = [text[:MAX_QUERY_CHARS]]
    names = coordinated_names(text)
    if len(names) < 2:
        return queries
    name_words = {w for n in names for w in content_words(n)}
    rest = " ".join(keywords(text, name_words))
    for name in names[: MAX_FIRST_QUERIES - 1]:
        queries.append(f"{name} {rest}".strip()[:MAX_QUERY_CHARS])
    return queries
