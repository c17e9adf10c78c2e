"""Both sides of a comparison, or a plain word that one side has no evidence.

A comparison report whose sources are all about one of the options still reads as a comparison:
the model fills the other side from memory or from the wrong pages, and grounding then removes
those sentences without a trace. The report says instead, in its limitations, which named option
no cited source is about.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from research_core.planning.question_shape import coordinated_names
from research_core.synthesis.evidence import source_subjects


def unevidenced_sides(question: str, cited: Iterable[Mapping]) -> list[str]:
    """The options a comparison question names (`coordinated_names`) that no cited source is about."""
    names = coordinated_names(question)
    if len(names) < 2:
        return []
    covered: set[str] = set()
    for source in cited:
        covered |= source_subjects(
            str(source.get("title") or ""), str(source.get("url") or ""), str(source.get("snippet") or ""), names
        )
    return [name for name in names if name.lower() not in covered]


def side_gaps(question: str, cited: Iterable[Mapping]) -> list[str]:
    """One limitations line per option without evidence."""
    return [
        f"{name}: no source about {name} was found, so the report states nothing about its side of the comparison"
        for name in unevidenced_sides(question, cited)
    ]


def part_side_gaps(number: str, question: str, cited: Iterable[Mapping], reported: Iterable[str] = ()) -> list[str]:
    """One limitations line per option a part's own question compares that none of the sources its
    answer cites is about: a report citing SQLite's pages for indexing may still answer "how do
    PostgreSQL and SQLite rank results?" from PostgreSQL's pages alone. Options in `reported` (a
    whole-report gap already says so) are not repeated."""
    skip = {name.lower() for name in reported}
    return [
        f"{name}'s side of part {number} ({' '.join(question.split())}): none of the sources this part cites is "
        f"about {name}"
        for name in unevidenced_sides(question, cited)
        if name.lower() not in skip
    ]
