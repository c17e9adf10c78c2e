"""Grounded writing: every factual statement cites a source whose text supports it, or it goes.

The model writes; the engine checks each statement (a sentence of five or more words that is not
a heading, a "no evidence" remark or part of a limitations section) with `claim_check`: half of
its words, every distinctive term and every negation in the quotes it cites, one subject per
cited claim (a comparison cites a source for each side):
- the model's own citations are kept when they back the statement;
- otherwise the engine tries its best source, its best pair, and one source per subject named;
- a statement nothing backs is removed, and counted, with the reason in the log;
- a framing sentence ("X and Y differ in ...", or one about the report itself: "These findings
  are supported by the documentation") carries no citation and is not counted; a sentence not
  about the question is removed.

Every check is code, so it holds whatever model wrote the text. Text carries citations as
`[[src:<id>]]` markers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from research_core.synthesis.branch_side import branch_side
from research_core.synthesis.claim_check import check_claim, is_wording, off_topic
from research_core.synthesis.claim_context import MARKER, ClaimContext, Walk, with_marker
from research_core.synthesis.evidence import build_evidence
from research_core.synthesis.framing import is_framing
from research_core.synthesis.quote_instead import REPEAT_BAR, quote_instead
from research_core.synthesis.scaffolding import (
    BULLET,
    FENCE,
    LABEL,
    LABEL_LINE,
    MIN_CLAIM_WORDS,
    SENTENCE_BREAK,
    citations_to_their_line,
    drop_dangling,
    drop_empty_scaffolding,
    fences_on_their_line,
    without_reference_entries,
)
from research_core.text.breadcrumbs import is_breadcrumb
from research_core.text.citations import cited_source_ids
from research_core.text.names import named_in
from research_core.text.similarity import is_near_duplicate
from research_core.text.support import SUPPORT_BAR, support_share
from research_core.text.terms import missing_terms

_NOT_A_CLAIM = re.compile(
    r"no (evidence|findings|sources?|information)|not (found|covered|answered|researched)|unanswered|could not|"
    r"did not find|do(es)? not (say|cover|mention|address)|remains? (open|unanswered)|rests on (a single|one) source|"
    r"not enough evidence",
    re.IGNORECASE,
)
_UNCHECKED_SECTION = re.compile(r"limitation|gap|caveat|open question|sources|references", re.IGNORECASE)
# a lead-in ending in a colon with this many words (its bold label aside) states something a source
# must back: "The manual recommends mod_proxy_balancer over the [P] flag for several reasons:"
LEAD_IN_CLAIM_WORDS = 8
_LABEL_PREFIX = re.compile(r"^\*\*[^*]+\*\*\s*:?\s*")
# "claim. [[src:a]]" -> "claim [[src:a]]." so a citation stays with the sentence it follows
_CITE_AFTER_STOP = re.compile(r"([.!?。！？])((?:\s*\[\[src:[0-9a-f]+\]\])+)")


@dataclass
class Grounded:
    """The checked text and its counts."""

    text: str
    statements: int = 0
    supported: int = 0
    attached: int = 0
    quoted: int = 0  # statements replaced by the quote they retold
    removed: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # why each removed statement went, in the same order


def is_claim(sentence: str) -> bool:
    """A sentence that asserts something a source must back (see the module docstring)."""
    bare = MARKER.sub("", sentence).strip()
    if bare.startswith("#") or LABEL.match(bare):
        return False
    if bare.endswith(":") and len(re.findall(r"\w+", _LABEL_PREFIX.sub("", bare))) < LEAD_IN_CLAIM_WORDS:
        return False  # "The levels are:" leads into a list; a long lead-in states a fact of its own
    return len(re.findall(r"\w+", bare)) >= MIN_CLAIM_WORDS and not _NOT_A_CLAIM.search(bare)


def _ranked(claim: str, texts: Mapping[str, str]) -> list[tuple[float, str]]:
    """(support share, source id) for every source, best first."""
    return sorted(((support_share(claim, t), sid) for sid, t in texts.items()), reverse=True)


def _candidates(bare: str, cited: list[str], context: ClaimContext) -> list[list[str]]:
    """Citation sets to try for a sentence, the model's own first: all it cited, each alone, then the
    engine's best source, best pair, and one best source per subject the sentence names."""
    ranked = [sid for _, sid in _ranked(bare, context.texts)]
    out: list[list[str]] = []
    if cited:
        out += [cited, *([sid] for sid in cited if len(cited) > 1)]
    out += [ranked[:1], ranked[:2]]
    per_subject = []
    for name in named_in(bare, context.names):
        about = [sid for sid in ranked if name in context.evidence[sid].subjects]
        if about and about[0] not in per_subject:
            per_subject.append(about[0])
    if per_subject:
        out.append(per_subject)
    unique: list[list[str]] = []
    for group in out:
        if group and group not in unique:
            unique.append(group)
    return unique


def _is_a_title(bare: str, context: ClaimContext) -> bool:
    """The sentence is a source's title and nothing more ("File system | Node.js v18.20.4 Documentation")."""
    words = re.findall(r"\w+", bare.lower())
    return any(words and words == re.findall(r"\w+", e.title.lower()) for e in context.evidence.values())


def _needed(bare: str, group: list[str], context: ClaimContext, walk: Walk) -> list[str]:
    """`group` without the citations the sentence passes without: a page cited beside the one that
    says it (a page on "Windows" beside the page on window functions) earns no place."""
    kept = list(group)
    for sid in group:
        rest = [s for s in kept if s != sid]
        if (
            rest
            and check_claim(
                bare, rest, context.evidence, context.names, walk.implied, walk.before, context.side, context.topic
            )
            is None
        ):
            kept = rest
    return kept


def _ground_sentence(sentence: str, context: ClaimContext, out: Grounded, walk: Walk) -> str | None:
    """The sentence with citations its sources back (`claim_check`), or None to remove it.

    A framing sentence loses its citations and is not counted as a claim; an off-topic one goes; a
    statement that repeats one already made goes without being counted. A long lead-in ("The
    manual recommends X over Y for these reasons:") is checked like a claim, and kept without a
    citation or removed: it introduces what follows, which carries the citations. A sentence under a heading
    or label naming a subject ("### SQLite", "**SQLite:**") and naming none itself is about that subject.
    """
    bare = MARKER.sub("", sentence).strip()
    if is_near_duplicate(bare, walk.seen, REPEAT_BAR) is not None:
        return None
    if _is_a_title(bare, context) or _VERSION_NOTE.match(bare) or is_breadcrumb(bare):
        out.removed.append(bare)
        out.reasons.append("a page's title, navigation or version note, not a statement")
        return None
    if is_framing(bare, context.names, context.topic):
        return bare
    out.statements += 1
    cited = [sid for sid in cited_source_ids(sentence) if sid in context.evidence]
    reason = "no source"
    unfinished = _UNFINISHED.search(bare.rstrip(" .!?"))
    if unfinished:
        reason = f"its sources hold no ending for '... {unfinished.group(0).strip()}': the sentence is unfinished"
    for group in [] if unfinished else _candidates(bare, cited, context):
        why = check_claim(
            bare, group, context.evidence, context.names, walk.implied, walk.before, context.side, context.topic
        )
        if why is None and off_topic(
            f"{bare} {' '.join(context.evidence[sid].text for sid in group)}", context.topic, context.names
        ):
            why = "not about the question"
        if why is None:
            walk.seen.append(bare)
            if bare.endswith(":"):
                out.statements -= 1
                return bare  # a lead-in its sources back introduces the list after it: it carries no citation
            out.supported += 1
            group = _needed(bare, group, context, walk)
            if group == cited:
                return sentence.strip()
            out.attached += len([sid for sid in group if sid not in cited])
            marked = bare
            for sid in group:
                marked = with_marker(marked, sid)
            return marked
        if group == cited or reason == "no source":
            reason = why
    if is_wording(reason) and not bare.endswith(":"):
        quoted = quote_instead(bare, cited or [sid for _, sid in _ranked(bare, context.texts)[:2]], context, walk)
        if quoted is not None:
            out.supported += 1
            out.quoted += 1
            walk.seen.append(MARKER.sub("", quoted).strip())
            return quoted
    out.removed.append(bare)
    out.reasons.append(reason)
    return None


# a statement the model stopped in the middle of: "... a tsquery from a user query using [1]."
_UNFINISHED = re.compile(
    r"\b(?:using|with|the|an?|of|to|for|by|and|or|from|via|such as|like|than|including|between)$", re.IGNORECASE
)
_VERSION_NOTE = re.compile(r"^\W*(?:new|changed|added|deprecated)\s+in\s+version\s+[\d.]+\W*$", re.IGNORECASE)


def _ground_code(block: list[str], texts: Mapping[str, str], out: Grounded) -> list[str]:
    """A fenced code block is one statement: kept with the source that shows it (half its words and
    every identifier in it), or removed whole."""
    body = "\n".join(line for line in block if not FENCE.match(line.strip()))
    scored = _ranked(body, texts)
    out.statements += 1
    if scored and scored[0][0] >= SUPPORT_BAR and not missing_terms(body, texts[scored[0][1]]):
        out.supported += 1
        closed = block if len(block) > 1 and FENCE.match(block[-1].strip()) else [*block, "```"]
        return [*closed, f"(code as in [[src:{scored[0][1]}]])"]
    out.removed.append(body[:160])
    out.reasons.append("code no source shows")
    return []


def _ground_line(line: str, context: ClaimContext, out: Grounded, walk: Walk) -> str | None:
    """One line of prose (or a list item) with each of its statements grounded; None when nothing is left."""
    bullet = BULLET.match(line)
    prefix = bullet.group(1) if bullet else ""
    kept = []
    for sentence in SENTENCE_BREAK.split(line[len(prefix) :]):
        if not is_claim(sentence):
            kept.append(sentence)
            walk.read(sentence)
            continue
        grounded = _ground_sentence(sentence, context, out, walk)
        if grounded is not None:
            kept.append(grounded)
            walk.read(grounded)
    rebuilt = " ".join(s for s in kept if s.strip())
    if rebuilt.strip() and (rebuilt.strip() != MARKER.sub("", rebuilt).strip() or re.search(r"\w", rebuilt)):
        return prefix + rebuilt
    return None


def ground_text(
    text: str,
    sources: Mapping[str, Mapping],
    quotes: Mapping[str, list[str]] | None = None,
    names: Iterable[str] = (),
    topic: str = "",
    known: Iterable[str] = (),
    branch: str = "",
) -> Grounded:
    """Check every factual statement of `text` against `sources` (id -> source record).

    `quotes` (source id -> the quotes findings took from it) is what a source is checked by, its
    passage when it has none; `names` are the question's subjects and `topic` its words
    (`claim_check`). A fenced code block counts as one statement: no source showing it, no block
    (a small model's code is written from memory). A statement repeating one of `known` (the text
    around this one) or one made earlier goes. When the text answers `branch`, one side of a
    comparison (`branch_side`), a sentence naming no documented subject is checked as that side's.
    """
    out = Grounded(text="")
    walk = Walk(seen=[MARKER.sub("", k).strip() for k in known])
    evidence = build_evidence(sources, quotes or {}, names)
    context = ClaimContext(evidence, tuple(names), topic, branch_side(branch, topic, evidence, names))
    texts = context.texts
    text = citations_to_their_line(without_reference_entries(fences_on_their_line(text)))
    text = _CITE_AFTER_STOP.sub(r"\2\1", text)
    lines: list[str] = []
    unchecked = False
    block: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if block is not None:
            block.append(line)
            if FENCE.match(stripped):
                lines += _ground_code(block, texts, out)
                block = None
            continue
        if FENCE.match(stripped):
            block = [line]
            continue
        if stripped.startswith("#") or LABEL_LINE.match(stripped):
            if stripped.startswith("#"):
                unchecked = bool(_UNCHECKED_SECTION.search(stripped))
            walk.implied = named_in(stripped, context.names)
            walk.heading, walk.recent = stripped, []
            lines.append(line)
            continue
        if not stripped or unchecked:
            lines.append(line)
            continue
        grounded_line = _ground_line(line, context, out, walk)
        if grounded_line is not None:
            lines.append(grounded_line)
    if block is not None:  # a block the model never closed
        lines += _ground_code(block, texts, out)
    out.text = re.sub(r"\n{3,}", "\n\n", "\n".join(drop_empty_scaffolding(drop_dangling(lines)))).strip()
    return out


def grounding_note(result: Grounded) -> str:
    """One line for the reasoning log."""
    note = f"{result.supported} of {result.statements} statements supported by their sources"
    if result.attached:
        note += f"; {result.attached} citation(s) attached by the engine"
    if result.removed:
        note += f"; {len(result.removed)} unsupported statement(s) removed"
    return note


def removed_note(result: Grounded, limit: int) -> str:
    """The reasoning-log line naming the first `limit` statements grounding removed (empty when none)."""
    if not result.removed:
        return ""
    reasons = [*result.reasons, *[""] * len(result.removed)]
    return "Removed: " + " | ".join(
        f"{r[:160]} ({why})" if why else r[:160] for r, why in zip(result.removed[:limit], reasons, strict=False)
    )
