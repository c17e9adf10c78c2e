"""The side a branch of a comparison is about, which its answer's sentences keep even when they name
only the compared topic.

A branch "How are JSON values stored in PostgreSQL?" of "How do PostgreSQL and SQLite differ in their
JSON support ...?" is about PostgreSQL. Its answer said "The "value" column from the json_tree and
json_each table-valued functions can hold values of type INTEGER, REAL, or TEXT", cited to SQLite's
"The Advantages Of Flexible Typing": the sentence names JSON, a subject of the question, so the
one-subject rule checked it for JSON alone and let it through, and the report printed it under the
PostgreSQL heading, where a reader takes it as PostgreSQL's.

A *documented* subject is one whose documentation some source of the text is (`evidence.owners`: the
folder or site of its address names it): a system, not a topic such as JSON. A branch whose question
names some of the question's documented subjects and not all of them is about those (`branch_side`);
a sentence of its answer that names none of the documented subjects is checked as if it named its
side (`unnamed_side`): it must cite a source about that side which says it. A side the branch names
twice over ("Python's sqlite3 module": Python, and SQLite through "sqlite3") needs a source about one
of its subjects, not both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from research_core.synthesis.evidence import Evidence, owners
from research_core.text.names import named_in


def documented_subjects(evidence: Mapping[str, Evidence], names: Iterable[str]) -> set[str]:
    """The subjects (lower-cased) some source of `evidence` is the documentation of."""
    names = list(names)
    return {owner for e in evidence.values() for owner in owners(e, names)}


def branch_side(branch: str, question: str, evidence: Mapping[str, Evidence], names: Iterable[str]) -> tuple[str, ...]:
    """The documented subjects `branch` names when `question` names documented subjects it leaves
    out (the branch is one side of a comparison); () otherwise, or when either is empty."""
    if not branch.strip() or not question.strip():
        return ()
    documented = sorted(documented_subjects(evidence, names))
    mine = named_in(branch, documented)
    theirs = [n for n in named_in(question, documented) if n not in mine]
    return tuple(mine) if mine and theirs else ()


def unnamed_side(
    sentence: str,
    side: Iterable[str],
    evidence: Mapping[str, Evidence],
    names: Iterable[str],
    cited: Iterable[str] = (),
) -> list[str]:
    """The side `sentence` speaks of when it names no documented subject, else []. A side of several
    subjects ("Python's sqlite3 module" names Python and, through sqlite3, SQLite) is one thing: the
    sentence needs a source about one of them, the first a cited source is about."""
    side = [s.lower() for s in side]
    if not side or named_in(sentence, documented_subjects(evidence, names)):
        return []
    about = [n for n in side if any(n in evidence[sid].subjects for sid in cited if sid in evidence)]
    return (about or side)[:1]
