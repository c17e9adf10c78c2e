"""A statement retold past its quotes gives way to the quoted sentence it retold.

The weak model stretches a quote ("determines the isolation level" for "controls which BEGIN is
issued"); the page's own sentence says it right. The stand-in passes every check the statement
would have, where the statement stood.
"""

from __future__ import annotations

import re

from research_core.synthesis.claim_check import check_claim, off_topic
from research_core.synthesis.claim_context import MARKER, ClaimContext, Walk, with_marker
from research_core.synthesis.clauses import clauses
from research_core.synthesis.scaffolding import MIN_CLAIM_WORDS, SENTENCE_BREAK
from research_core.text.anaphora import leans_back
from research_core.text.names import named_in
from research_core.text.similarity import is_near_duplicate
from research_core.text.support import SUPPORT_BAR, support_share

# a statement this similar to one already made repeats it
REPEAT_BAR = 0.8
# a quote standing in for a statement is at most this long: a reader wants the sentence, not the page
QUOTE_INSTEAD_MAX_WORDS = 40


def quote_instead(bare: str, cited: list[str], context: ClaimContext, walk: Walk) -> str | None:
    """The quoted sentence a statement retold past what it says (`_one_quote_instead`), or, for a
    comparison no one source is about both sides of, one quoted sentence per side: "PostgreSQL
    ranks with ts_rank, while SQLite has no ranking function like PostgreSQL's" gives way to
    PostgreSQL's own sentence on ts_rank, and to SQLite's on ranking when one holds that clause."""
    found = _one_quote_instead(bare, cited, context, walk)
    if found is not None or len(named_in(bare, context.names)) < 2:
        return found
    parts = []
    for clause in clauses(bare):
        if len(named_in(clause, context.names)) == 1 and (quote := _one_quote_instead(clause, cited, context, walk)):
            walk.seen.append(MARKER.sub("", quote).strip())
            parts.append(quote)
    return " ".join(parts) or None


def _one_quote_instead(bare: str, cited: list[str], context: ClaimContext, walk: Walk) -> str | None:
    """The quoted sentence a statement retold past what it says, to stand in its place: of the
    sentences the findings quoted from the sources it cites (or from its best two sources), the one
    holding most of its words (at least `SUPPORT_BAR`), when that sentence says something on its
    own (it does not lean on the one before it), comes from a source about every subject the
    statement names, passes every check where the statement stood, and was not said already. A
    retelling that adds "lightweight" or drops "most often" gives way to the source's own sentence.
    """
    names = named_in(bare, context.names)
    ranked = sorted(
        (
            (support_share(bare, sentence), sid, sentence)
            for sid in cited
            if context.evidence[sid].quoted and all(n in context.evidence[sid].subjects for n in names)
            for unit in context.evidence[sid].units
            for sentence in SENTENCE_BREAK.split(" ".join(unit.split()))
            if MIN_CLAIM_WORDS <= len(sentence.split()) <= QUOTE_INSTEAD_MAX_WORDS
            and _is_prose(sentence)
            and not leans_back(sentence)
        ),
        reverse=True,
    )
    for share, sid, sentence in ranked:
        if share < SUPPORT_BAR:
            return None
        if is_near_duplicate(sentence, walk.seen, REPEAT_BAR) is not None:
            continue
        if (
            check_claim(
                sentence, [sid], context.evidence, context.names, walk.implied, walk.before, context.side, context.topic
            )
            is not None
        ):
            continue
        if off_topic(f"{sentence} {context.evidence[sid].text}", context.topic, context.names):
            continue
        return with_marker(sentence if re.search(r"[.!?。！？][\"')\]]*$", sentence) else f"{sentence}.", sid)
    return None


def _is_prose(sentence: str) -> bool:
    """Most of the sentence's tokens are words, not code ("readFile(fileInfo.name, { signal }")."""
    tokens = sentence.split()
    return sum(1 for t in tokens if _WORD_TOKEN.match(t)) >= PROSE_SHARE * len(tokens)


_WORD_TOKEN = re.compile(r"^[(\"']?[A-Za-z][A-Za-z'-]*[)\"',.;:!?]*$")
PROSE_SHARE = 0.7

# "New in version 3.2.": a manual's note on an entry it no longer stands beside
