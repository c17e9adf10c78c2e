"""A branch about one side of a comparison takes no fact from the other side's manual.

The branch "How are JSON values stored in PostgreSQL?" of "How do PostgreSQL and SQLite differ in
their JSON support ...?" was shown SQLite's "The Advantages Of Flexible Typing" (the page names
PostgreSQL, so it passed the relevance gate) and kept "The json_tree and json_each table-valued
functions that are built into SQLite both have a "value" column ..." as a finding about PostgreSQL.

The rule: when the branch names some of the question's documented subjects (those whose manual one
of the step's shown pages is, `synthesis.evidence.owners`) and the quoted page is the manual of
another subject of the question and of none the branch names, the quote must name one of the
branch's own documented subjects ("The SQLite developers used the PostgreSQL window function
documentation as their primary reference" names PostgreSQL); otherwise it speaks of its own manual's
subject and is refused. A branch naming no documented subject ("How does the prefork MPM serve
connections?" in Apache's manual) and a branch naming every side (the flat branch) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from research_core.schemas import Source
from research_core.synthesis.evidence import page_owners, question_subjects
from research_core.text.names import named_in


def other_sides_quote(quote: str, source: Source, focus: str, question: str, shown: Iterable[Source]) -> str | None:
    """Why `quote`, from `source`, is another side's fact and not the branch's (`focus`), or None."""
    names = list(question_subjects(focus, question))
    site = page_owners(source.title, source.url, names)
    mine = named_in(focus, names)
    if not site or set(site) & set(mine):
        return None
    documented = {owner for page in shown for owner in page_owners(page.title, page.url, names)}
    own = [n for n in mine if n in documented]
    if not own or named_in(quote, own):
        return None
    return f"from {site[0]}'s manual and names no {' or '.join(own)}: {quote[:100]!r}"
