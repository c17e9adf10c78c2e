"""The report's direct answer, picked from the branch answers when the model's overview gives none.

A small model's overview mostly restates the branch answers without their citations, or retells
them past what their quotes say; grounding then removes every sentence of it, and the report would
open on its first branch section with no paragraph that answers the whole question. The engine
picks that paragraph itself: from each answered branch (tree order, at most `MAX_LEAD_SENTENCES`),
the cited sentence that shares the most word stems with the main question and the branch's own
question, from what the answer says before its "Also found" list (the quotes it left out) when
that holds one. Each was checked when its branch answer was grounded, so the lead is as right as
the answers it repeats, and it costs no model call. A sentence that leans on the one before it
("This is the default isolation level", `text.anaphora`) is not picked: what it is about would
stay behind in the branch answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from research_core.synthesis.claim_context import MARKER
from research_core.synthesis.scaffolding import BULLET, FENCE, LABEL_LINE, MIN_CLAIM_WORDS, SENTENCE_BREAK
from research_core.text.anaphora import leans_back
from research_core.text.similarity import is_near_duplicate
from research_core.text.support import stems

MAX_LEAD_SENTENCES = 4
# the heading `synthesis.synthesize` puts above the findings an answer left out
ALSO_FOUND = "Also found:"
_HEADING = re.compile(r"^\s*#{1,6}\s")
_BOLD_LABEL = re.compile(r"^\*\*[^*]{1,60}\*\*\s*:?\s*")
_CODE_NOTE = re.compile(r"^\(code as in ")


def cited_sentences(answer: str) -> list[str]:
    """The sentences of a grounded answer that carry a citation, outside code, headings and labels,
    up to its "Also found" list (`answer_parts`)."""
    return _cited(answer_parts(answer)[0])


def answer_parts(answer: str) -> tuple[str, str]:
    """(the answer the model wrote, the "Also found" list of findings it left out, which
    `synthesis.synthesize` appends)."""
    lines = answer.splitlines()
    cut = next((i for i, line in enumerate(lines) if line.strip() == ALSO_FOUND), len(lines))
    return "\n".join(lines[:cut]), "\n".join(lines[cut + 1 :])


def _cited(answer: str) -> list[str]:
    out: list[str] = []
    in_code = False
    for raw in answer.splitlines():
        line = raw.strip()
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or not line or _HEADING.match(line) or LABEL_LINE.match(line) or _CODE_NOTE.match(line):
            continue
        line = _BOLD_LABEL.sub("", BULLET.sub("", line))
        for sentence in SENTENCE_BREAK.split(line):
            sentence = sentence.strip()
            bare = MARKER.sub("", sentence)
            if sentence != bare and len(bare.split()) >= MIN_CLAIM_WORDS:
                out.append(sentence)
    return out


def _best(sentences: list[str], wanted: set[str], picked: list[str]) -> str | None:
    """The sentence sharing most word stems with `wanted` (the earliest on a tie), not repeating one picked."""
    best, best_score = None, 0
    for sentence in sentences:
        bare = MARKER.sub("", sentence)
        if leans_back(bare):
            continue  # "This is the default isolation level": what it is about stays behind in its answer
        score = len(stems(bare) & wanted)
        if score > best_score and not is_near_duplicate(bare, [MARKER.sub("", p) for p in picked]):
            best, best_score = sentence, score
    return best


def picked_lead(question: str, answers: Iterable[tuple[str, str]]) -> str:
    """The direct answer: one sentence per (branch question, grounded answer with markers), in order;
    "" when no branch answer has a cited sentence about the question."""
    asked = stems(question)
    picked: list[str] = []
    for branch_question, answer in answers:
        if len(picked) >= MAX_LEAD_SENTENCES:
            break
        wanted = asked | stems(branch_question)
        written, also_found = answer_parts(answer)
        # a finding the answer left out is the answer only when what it wrote holds nothing on the question
        sentence = _best(_cited(written), wanted, picked) or _best(_cited(also_found), wanted, picked)
        if sentence:
            picked.append(sentence)
    return " ".join(picked)
