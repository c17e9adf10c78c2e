"""Where a comparison turns from one side to the other: a cited sentence cut into clauses, and the
side each clause speaks of, so that each side's half is checked against that side's own sources."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from research_core.text.names import contrasted, named_in

# where one side of a comparison ends and the other begins
_CLAUSE_BREAK = re.compile(
    r";|,?\s+\b(?:while|whereas|but|although|unlike|in contrast|on the other hand)\b|,\s+and\s+(?=[A-Z])",
    re.IGNORECASE,
)
# "The (main) difference between X and Y is that ...": what follows says which side does what
_DIFFERENCE_LEAD_IN = re.compile(
    r"^(?:the\s+)?(?:main\s+|key\s+|major\s+)?differences?\s+between\s+.{1,120}?\s+(?:is|are)\s+that\s+", re.I
)


def clauses(sentence: str) -> list[str]:
    """The sentence cut where a comparison turns from one side to the other, after its lead-in
    ("The difference between X and Y is that"), which names both sides and states nothing."""
    parts = [p.strip(" ,") for p in _CLAUSE_BREAK.split(_DIFFERENCE_LEAD_IN.sub("", sentence, count=1))]
    return [p for p in parts if p and re.search(r"\w", p)] or [sentence]


def clause_sides(
    bare: str, names: list[str], implied: list[str], side: Iterable[str] = ()
) -> Iterator[tuple[str, str]]:
    """Each clause of the sentence with each side it speaks of ("" for none): a clause naming no
    subject is about the subjects its heading implies, when the sentence names none; and every
    clause of a sentence naming no documented subject is about its branch's `side` too."""
    named = named_in(bare, names)
    against = contrasted(bare, names)
    for clause in clauses(bare):
        spoken = [n for n in named_in(clause, names) if n not in against] or (implied if not named else [])
        for one in [*spoken, *(n for n in side if n not in spoken)] or [""]:
            yield clause, one
