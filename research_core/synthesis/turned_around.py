"""A relation with a direction, turned around: "PostgreSQL's are based on SQLite's" from a quote
saying "SQLite's are based on PostgreSQL's".

Both sentences name both systems and share nearly every word, so neither the subject rules nor
word overlap see that the sentence swaps them. The rule looks only at relations that run one
way (`_DIRECTED`: based on, derived from, than, replaced by, ...): when the quote has A, then such
a relation, then B, and the sentence has B, the same relation, then A, it says the opposite. The
refusal is one of wording: the quote itself can stand in its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise

from research_core.text.names import mentions

# relations whose two ends cannot swap without changing what is said
_DIRECTED = re.compile(
    r"\b(?:based\s+on|derived\s+from|inspired\s+by|modell?ed\s+(?:on|after)|borrowed\s+from|taken\s+from|"
    r"copied\s+from|ported\s+from|replaced\s+by|replaces|supersedes|superseded\s+by|than|"
    r"predates|precedes|preceded\s+by|extends|built\s+on(?:\s+top\s+of)?|wraps|depends\s+on)\b",
    re.IGNORECASE,
)


def _relations(text: str, names: Iterable[str]) -> set[tuple[str, str, str]]:
    """(first name, relation, second name) for each directed relation between two names mentioned in a row."""
    found = mentions(text, names)
    out: set[tuple[str, str, str]] = set()
    for (start, first), (end, second) in pairwise(found):
        if second != first:
            between = text[start:end]
            out |= {(first, " ".join(m.group(0).lower().split()), second) for m in _DIRECTED.finditer(between)}
    return out


def turned_around(clause: str, quote: str, names: Iterable[str]) -> str | None:
    """Why `clause` reverses a directed relation `quote` states between two names, or None."""
    names = list(names)
    theirs = _relations(quote, names)
    if not theirs:
        return None
    for first, relation, second in _relations(clause, names):
        if (second, relation, first) in theirs and (first, relation, second) not in theirs:
            return f"turns its quote around: the quote has {second} {relation} {first}, not the other way round"
    return None
