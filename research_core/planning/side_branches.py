"""A comparison's sides each get a branch of their own.

A question that joins named options ("full-text search in PostgreSQL and SQLite") is answered
well only when each option is researched in its own documentation. The small model often plans
branches for one side only ("How are documents indexed in PostgreSQL?", "How do queries look in
PostgreSQL?") or only branches that name both sides together; the other side's half of the
report is then written from the first side's pages. So every option the question joins gets a
sub-question that names it and none of the other options when another option has one (the plan
is lopsided), written by code from the question:
the question's frame with the list of options replaced by that option's own words
("Full-text search in SQLite: how are documents indexed, ...?").
"""

from __future__ import annotations

import re

from research_core.planning.question_shape import coordinated_names, frame_head, topic_words
from research_core.schemas import ProposedSubQuestion
from research_core.text.names import named_as_word, named_in

# a list separator between two options: "A and B", "A, B", "A or with B", "A vs B"
_SEPARATOR = re.compile(r",?\s+(?:and|or|vs\.?|versus)\s+|,\s+", re.IGNORECASE)
# the leading verb of a frame, which a single option's sub-question does not need
COMPARE_VERB = re.compile(r"^(?:compare|contrast)\s+", re.IGNORECASE)
# topic words a side's sub-question needs besides the option's name
MIN_TOPIC_WORDS = 2
_PLURAL_DO = re.compile(r"\b(how|what|why|where|when)\s+do$", re.IGNORECASE)


def sides_without_branch(question: str, sub_questions: list[str]) -> list[str]:
    """The options `question` joins that no sub-question names on its own (naming none of the
    others), when another option has a sub-question of its own: a plan that researches one side
    alone and the other only beside it (or not at all) is lopsided. A plan whose sub-questions
    each take every option together is left as it is."""
    sides = coordinated_names(question)
    if len(sides) < 2:
        return []
    alone = set()
    for text in sub_questions:
        named = named_as_word(text, sides)  # "Python's sqlite3 module" is not a branch about SQLite
        if len(named) == 1:
            alone.add(named[0])
    if not alone:
        return []
    return [side for side in sides if side.lower() not in alone]


def side_question(question: str, side: str) -> str | None:
    """A sub-question about `side` alone: the question's frame (or its first clause) with its list of
    options replaced by the words naming `side` there, then the clauses the frame heads. None when
    that leaves nothing to ask of the option ("Which is faster, React or Vue?")."""
    text = " ".join(question.split())
    framed = frame_head(text)
    head = framed or re.split(r"[?:;]|,\s+and\s+|\.\s*$", text, maxsplit=1)[0]
    rest = text[len(head) :].lstrip(" :?.,").strip() if framed else ""
    sides = [s for s in coordinated_names(text) if named_in(head, [s])]
    spans = _option_spans(head, sides) if len(sides) > 1 else {}
    if side not in spans:
        return None
    start, end = spans[sides[0]][0], spans[sides[-1]][1]
    phrase = head[spans[side][0] : spans[side][1]].strip()
    before = head[:start].rstrip()
    if before and phrase.split()[0].lower() == before.split()[-1].lower():
        phrase = phrase.split(maxsplit=1)[1] if len(phrase.split()) > 1 else phrase  # "with ... and with X"
    before = _PLURAL_DO.sub(r"\1 does", before)  # "How do PostgreSQL and SQLite" -> "How does SQLite"
    own = COMPARE_VERB.sub("", f"{before} {phrase}{head[end:]}".strip()).rstrip(" .")
    if len(topic_words(own) - topic_words(side)) < MIN_TOPIC_WORDS:
        return None
    if re.match(r"[a-z]+\b(?![.\w])", own):
        own = own[:1].upper() + own[1:]
    if not rest:
        return own if own.endswith("?") else f"{own}?"
    return f"{own}: {rest}" if rest.endswith("?") else f"{own}: {rest}?"


def _option_spans(head: str, sides: list[str]) -> dict[str, tuple[int, int]]:
    """Where each option's phrase stands in `head`: from the end of the separator before it (or a
    possessive just before the first name: "mod_proxy's ProxyPass directive") to the start of the
    separator after it (or, for the last, to the end of its name and what its possessive owns:
    "mod_rewrite's [P] flag")."""
    found = []
    for side in sides:
        match = re.search(rf"(?<![\w.]){re.escape(side)}(?![\w])", head, re.IGNORECASE)
        if match is None:
            return {}
        found.append((side, match.start(), match.end()))
    found.sort(key=lambda item: item[1])
    spans: dict[str, tuple[int, int]] = {}
    for i, (side, start, end) in enumerate(found):
        if i == 0:
            possessive = re.search(r"(?:[\w.]+['’]s\s+)+$", head[:start])
            begin = possessive.start() if possessive else start
        else:
            between = list(_SEPARATOR.finditer(head, found[i - 1][2], start))
            begin = between[-1].end() if between else start
        if i + 1 < len(found):
            after = list(_SEPARATOR.finditer(head, end, found[i + 1][1]))
            finish = after[-1].start() if after else end
        else:
            owned = re.match(r"['’]s(?:\s+[^\s:;,?]+){1,2}", head[end:])
            finish = end + (owned.end() if owned else 0)
        spans[side] = (begin, finish)
    return spans


# Priority of a sub-question added for an option no branch researches on its own.
SIDE_PRIORITY = 0.85


def cover_sides(question: str, proposed: list[ProposedSubQuestion]) -> tuple[list[ProposedSubQuestion], list[str]]:
    """`proposed` with a sub-question added for each option the question joins that no proposed
    sub-question names on its own; returns (list, added texts)."""
    out = list(proposed)
    added: list[str] = []
    for side in sides_without_branch(question, [sq.question for sq in proposed]):
        text = side_question(question, side)
        if text is None:
            continue
        rationale = f"{side} researched in its own documentation."
        out.append(ProposedSubQuestion(question=text, priority=SIDE_PRIORITY, rationale=rationale))
        added.append(text)
    return out, added
