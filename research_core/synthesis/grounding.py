"""Grounded writing: every factual statement cites a source whose text supports it, or it goes.

The model writes; the engine checks each statement (a sentence of five or more words that is not
a heading, a "no evidence" remark or part of a limitations section):
- a citation whose source does not support the statement is removed;
- a statement left without a citation gets the best-supporting source among those allowed;
- a statement no allowed source supports is removed, and counted.

Support is lexical (`research.evidence.support_share` against the source's passage), so it
holds whatever model wrote the text. Text carries citations as `[[src:<id>]]` markers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from research_core.research.evidence import SUPPORT_BAR, source_text, support_share
from research_core.text.citations import cited_source_ids

_MARKER = re.compile(r"\s*\[\[src:([0-9a-f]+)\]\]")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")
_BULLET = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")
_NOT_A_CLAIM = re.compile(
    r"no (evidence|findings|sources?|information)|not (found|covered|answered|researched)|unanswered|could not|"
    r"did not find|do(es)? not (say|cover|mention|address)|remains? (open|unanswered)|rests on (a single|one) source|"
    r"not enough evidence",
    re.IGNORECASE,
)
_UNCHECKED_SECTION = re.compile(r"limitation|gap|caveat|open question|sources|references", re.IGNORECASE)
MIN_CLAIM_WORDS = 5
_FENCE = re.compile(r"^(```|~~~)")
# a bold label such as "**Verdict: validated** (confidence 7/10)" states no fact of its own
_LABEL = re.compile(r"^\*\*[^*]+\*\*\s*(\([^)]*\))?\s*[.:]?$")
# "claim. [[src:a]]" -> "claim [[src:a]]." so a citation stays with the sentence it follows
_CITE_AFTER_STOP = re.compile(r"([.!?。！？])((?:\s*\[\[src:[0-9a-f]+\]\])+)")


@dataclass
class Grounded:
    """The checked text and its counts."""

    text: str
    statements: int = 0
    supported: int = 0
    attached: int = 0
    removed: list[str] = field(default_factory=list)


def is_claim(sentence: str) -> bool:
    """A sentence that asserts something a source must back (see the module docstring)."""
    bare = _MARKER.sub("", sentence).strip()
    if bare.endswith(":") or bare.startswith("#") or _LABEL.match(bare):
        return False
    return len(re.findall(r"\w+", bare)) >= MIN_CLAIM_WORDS and not _NOT_A_CLAIM.search(bare)


def _with_marker(sentence: str, sid: str) -> str:
    """Put a citation before the sentence's final punctuation."""
    match = re.search(r"([.!?。！？]+[\"')\]]*)$", sentence)
    if match:
        return f"{sentence[: match.start()].rstrip()} [[src:{sid}]]{match.group(1)}"
    return f"{sentence.rstrip()} [[src:{sid}]]"


def _ranked(claim: str, texts: Mapping[str, str]) -> list[tuple[float, str]]:
    """(support share, source id) for every source, best first."""
    return sorted(((support_share(claim, t), sid) for sid, t in texts.items()), reverse=True)


def _ground_sentence(sentence: str, texts: Mapping[str, str], out: Grounded) -> str | None:
    """The sentence with only supporting citations (one attached if needed), or None to remove it."""
    bare = _MARKER.sub("", sentence).strip()
    kept = [
        sid for sid in cited_source_ids(sentence) if sid in texts and support_share(bare, texts[sid]) >= SUPPORT_BAR
    ]
    out.statements += 1
    if kept:
        out.supported += 1
        cleaned = _MARKER.sub(lambda m: f" [[src:{m.group(1)}]]" if m.group(1) in kept else "", sentence)
        return cleaned.strip()
    cited = [sid for sid in cited_source_ids(sentence) if sid in texts]
    if len(cited) > 1 and support_share(bare, " ".join(texts[sid] for sid in cited)) >= SUPPORT_BAR:
        # a comparison drawing on several cited sources: together they support it
        out.supported += 1
        return sentence.strip()
    scored = _ranked(bare, texts)
    if scored and scored[0][0] >= SUPPORT_BAR:
        out.supported += 1
        out.attached += 1
        return _with_marker(bare, scored[0][1])
    if len(scored) > 1 and support_share(bare, f"{texts[scored[0][1]]} {texts[scored[1][1]]}") >= SUPPORT_BAR:
        out.supported += 1
        out.attached += 2
        return _with_marker(_with_marker(bare, scored[0][1]), scored[1][1])
    out.removed.append(bare)
    return None


def _ground_code(block: list[str], texts: Mapping[str, str], out: Grounded) -> list[str]:
    """A fenced code block is one statement: kept with the source that shows it, or removed whole."""
    body = "\n".join(line for line in block if not _FENCE.match(line.strip()))
    scored = _ranked(body, texts)
    out.statements += 1
    if scored and scored[0][0] >= SUPPORT_BAR:
        out.supported += 1
        closed = block if len(block) > 1 and _FENCE.match(block[-1].strip()) else [*block, "```"]
        return [*closed, f"(code as in [[src:{scored[0][1]}]])"]
    out.removed.append(body[:160])
    return []


def ground_text(text: str, sources: Mapping[str, Mapping]) -> Grounded:
    """Check every factual statement of `text` against `sources` (id -> source record).

    A fenced code block counts as one statement: no source showing it, no block (a small model's
    code is written from memory).
    """
    out = Grounded(text="")
    texts = {sid: source_text(dict(s)) for sid, s in sources.items()}
    text = _CITE_AFTER_STOP.sub(r"\2\1", text)
    lines: list[str] = []
    unchecked = False
    block: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if block is not None:
            block.append(line)
            if _FENCE.match(stripped):
                lines += _ground_code(block, texts, out)
                block = None
            continue
        if _FENCE.match(stripped):
            block = [line]
            continue
        if stripped.startswith("#"):
            unchecked = bool(_UNCHECKED_SECTION.search(stripped))
            lines.append(line)
            continue
        if not stripped or unchecked:
            lines.append(line)
            continue
        bullet = _BULLET.match(line)
        prefix = bullet.group(1) if bullet else ""
        body = line[len(prefix) :]
        kept = []
        for sentence in _SENTENCE.split(body):
            if not is_claim(sentence):
                kept.append(sentence)
                continue
            grounded = _ground_sentence(sentence, texts, out)
            if grounded is not None:
                kept.append(grounded)
        rebuilt = " ".join(s for s in kept if s.strip())
        if rebuilt.strip() and (rebuilt.strip() != _MARKER.sub("", rebuilt).strip() or re.search(r"\w", rebuilt)):
            lines.append(prefix + rebuilt)
    if block is not None:  # a block the model never closed
        lines += _ground_code(block, texts, out)
    out.text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
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
    return "Removed: " + " | ".join(r[:160] for r in result.removed[:limit]) if result.removed else ""
