"""A sentence that names at most one subject may not stitch one system's manual to another's.

"The right-hand operand of the MATCH operator can be a string consisting of a single term or a
tsquery, which represents a text query", cited to SQLite's FTS page and PostgreSQL's text-search
introduction, names neither system, so the one-subject rule of `claim_check` has no side to check;
each page holds part of it, and together they hold enough of its words. But the MATCH operand is
SQLite's and tsquery is PostgreSQL's: the sentence says what neither manual says.

Naming one subject does not make it safe: "The isolation level attribute can be used to choose the
underlying SQLite transaction behaviour, which is either serializable or read-uncommitted", cited
to Python's sqlite3 page and SQLite's isolation page, gives the Python attribute the values of
SQLite's own isolation; both pages are about SQLite, so the side check passes it.

The rule: when a sentence names at most one subject of the question and its cited sources belong
to the manuals of different subjects (`evidence.owners`: the folder or site of the address), the
sources of one manual must hold `claim_check.CLAIM_BAR` of its word stems by themselves. Sentences
naming two subjects, and "Both systems ..." sentences, are checked per side elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from research_core.synthesis.evidence import Evidence, owners
from research_core.text.names import named_in
from research_core.text.support import stem_share


def mixed_manuals(
    sentence: str, cited: list[str], evidence: Mapping[str, Evidence], names: Iterable[str], bar: float
) -> str | None:
    """Why `sentence` joins what different subjects' manuals say, or None."""
    names = list(names)
    if len(named_in(sentence, names)) > 1:  # each side is checked on its own
        return None
    manuals: dict[str, list[str]] = {}
    for sid in cited:
        for owner in owners(evidence[sid], names)[:1]:
            manuals.setdefault(owner, []).append(evidence[sid].text)
    if len(manuals) < 2:
        return None
    held = {owner: stem_share(sentence, " ".join(texts)) for owner, texts in manuals.items()}
    if max(held.values()) >= bar:
        return None
    return f"joins what the manuals of {' and '.join(sorted(held))} say; neither holds {bar:.0%} of it"
