"""A query that names a product ranks that product's own documentation first.

A library search ranks by words: "PostgreSQL write upsert CONFLICT" put SQLite's UPSERT page first,
because SQLite's page says "upsert" and "conflict" more often than PostgreSQL's INSERT page, which
came second. Merged with the step's other queries best first and cut at the prompt's five sources,
PostgreSQL's page was never shown, and a flat run of "How do PostgreSQL and SQLite write an upsert
with ON CONFLICT ...?" said nothing of `INSERT ... ON CONFLICT DO UPDATE`.

So each query's results are re-ranked before they are merged: when the query names some of the
question's products (`question_shape.products`) but not all, the pages of those products' own documentation (the folder
or site of their address, `evidence.page_owners`) come first, pages no product owns (a web page)
next, and pages of another product of the question last; the order within each group is the
search's. The relevances the search gave are handed out again in the new order, so the query's
best page keeps the query's best score and a step's merge (`searching.best_first`) compares
queries as before. A query naming no product keeps the search's order, and so does one naming every
product: a page that compares them all (a survey, a benchmark) is what it asks for.

A search returns a query's best few, and these may all be the other product's: "Python sqlite3 module
report rows statement changed" brought five of SQLite's C-interface and pragma pages, and Python's
`sqlite3.html` (with `Cursor.rowcount`) came sixth. So such a query asks its backend for
`WIDER_SEARCH` times as many results, and keeps as many as any query after re-ranking.
"""

from __future__ import annotations

from research_core.planning.question_shape import products
from research_core.schemas import Source
from research_core.search.base import MAX_RESULTS_PER_QUERY
from research_core.synthesis.evidence import page_owners
from research_core.text.names import named_as_word

# how many times a query's usual number of results one naming some of the question's products fetches
WIDER_SEARCH = 2


def question_products(topic: str, question: str) -> list[str]:
    """The products a branch's searches rank by: those its `topic` names, then those of the main `question`."""
    return list(dict.fromkeys([*products(topic), *products(question)]))


def _asked(query: str, names: list[str]) -> set[str]:
    """The products (lower-cased) `query` names when it names some of `names` but not all; else none."""
    asked = set(named_as_word(query, names))
    return set() if asked >= {name.lower() for name in names} else asked


def results_to_fetch(query: str, names: list[str], wanted: int) -> int:
    """How many results to ask a backend for, to keep `wanted` after re-ranking (at most `MAX_RESULTS_PER_QUERY`)."""
    return min(wanted * WIDER_SEARCH, MAX_RESULTS_PER_QUERY) if _asked(query, names) else wanted


def own_documentation_first(query: str, names: list[str], results: list[Source]) -> list[Source]:
    """`results` of `query` re-ranked by the rule above; `names` are the products of the question."""
    asked = _asked(query, names)
    if not asked or len(results) < 2:
        return results

    def group(source: Source) -> int:
        owners = {owner.lower() for owner in page_owners(source.title, source.url, names)}
        if owners & asked:
            return 0
        return 2 if owners else 1

    ranked = sorted(results, key=group)
    if ranked == results:
        return results
    scores = sorted((s.relevance for s in results), reverse=True)
    return [source.model_copy(update={"relevance": score}) for source, score in zip(ranked, scores, strict=True)]
