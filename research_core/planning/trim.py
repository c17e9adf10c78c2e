"""Trimming a plan to the maximum number of sub-questions without losing a part of the question.

The engine adds a sub-question for each clause of a multi-part question that the model's plan
leaves out, and one for each compared option researched only beside another. Trimming the
longer list by priority alone threw those away again whenever the model rated its own
sub-questions higher: for "Compare the date and time functions of PostgreSQL and SQLite, and
explain how Python's datetime module represents time zones" the model proposed three
sub-questions at 0.9 (none about Python), the engine added the Python clause at 0.85, and the
trim kept the model's three, so the report never reached time zones. The rule: drop the
lowest-priority sub-question (the later one among equals) whose removal leaves every clause
and every compared option as covered as before; only when no such sub-question is left does
priority alone decide.
"""

from __future__ import annotations

import re

from research_core.planning.question_shape import frame_head, question_parts, subjects, topic_words
from research_core.planning.side_branches import sides_without_branch
from research_core.schemas import ProposedSubQuestion
from research_core.text.words import content_words

# A part counts as covered when a sub-question holds this share of its topic words.
PART_COVERED_SHARE = 0.5
# fewer words than this left of a clause once its names are set aside cannot tell what it asks
MIN_ASKED_WORDS = 2


def part_covered(part: str, texts: list[str]) -> bool:
    """Whether one of `texts` holds at least PART_COVERED_SHARE of the clause's topic words, not
    counting the names it is about (`asked_words`): "How does Python's sqlite3 module handle the result
    of an upsert statement?" names the module of "how does Python's sqlite3 module report how many rows
    a statement changed" but asks nothing of what it reports."""
    words = asked_words(part)
    if not words:
        return True
    return any(len(words & content_words(text)) / len(words) >= PART_COVERED_SHARE for text in texts)


def asked_words(part: str) -> set[str]:
    """The clause's topic words less the names it mentions (`subjects`, and words with a digit or an
    underscore: "sqlite3", "mod_deflate"); all of its topic words when fewer than two others are left
    ("how PostgreSQL's type system differs" asks about its type system, whatever words a sub-question
    uses for it)."""
    words = topic_words(part)
    names = {w for name in subjects(part) for w in content_words(name)}
    asked = {w for w in words if w not in names and not re.search(r"[\d_]", w)}
    return asked if len(asked) >= MIN_ASKED_WORDS else words


def parts_to_cover(question: str) -> list[str]:
    """The clauses of a multi-part `question` that each need a sub-question ([] for a question of one
    clause): all but the head that frames them ("Compare common table expressions in PostgreSQL and
    SQLite: how is a WITH query written, and how does a recursive query work in each?"), which every
    other clause is asked under. A sub-question of its own for the head pushed the recursive clause
    out of a three-branch plan."""
    parts = question_parts(question)
    if len(parts) < 2:
        return []
    head = frame_head(question).strip(" ,.;:?")
    return [part for part in parts if part.strip(" ,.;:?") != head]


def coverage_gaps(question: str, texts: list[str]) -> int:
    """How many clauses of `question` (`parts_to_cover`) and compared options no sub-question among `texts` covers."""
    missing = sum(1 for part in parts_to_cover(question) if not part_covered(part, texts))
    return missing + len(sides_without_branch(question, texts))


def trim_plan(question: str, proposed: list[ProposedSubQuestion], limit: int) -> list[ProposedSubQuestion]:
    """At most `limit` of `proposed`, in their order, dropping first what the question's coverage
    does not need (see the module docstring)."""
    kept = list(proposed)
    while len(kept) > max(0, limit):
        gaps = coverage_gaps(question, [sq.question for sq in kept])
        order = sorted(range(len(kept)), key=lambda i: (kept[i].priority, -i))
        spare = [
            i for i in order if coverage_gaps(question, [sq.question for j, sq in enumerate(kept) if j != i]) <= gaps
        ]
        kept.pop((spare or order)[0])
    return kept
