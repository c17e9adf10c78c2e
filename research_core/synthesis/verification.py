"""Verified citations: check each cited claim against the text of the source it cites.

A synthesis carries markers `[[src:id]]`; each (sentence, cited source) pair becomes a claim
the LLM judges against the source's snippet. Unsupported citations are removed from the text.
When the judge fails, a lexical check (shared content words) stands in, and the log says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_core.llm.client import LLMClient, StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.schemas import CitationCheckOutput, CostEntry
from research_core.text.citations import cited_source_ids
from research_core.text.sentence_ends import SENTENCE_END
from research_core.text.words import content_words

MAX_CLAIMS = 16
# a claim is a sentence as the report is cut into them: "(e.g. event or worker)" does not end one
_SENTENCE_WITH_END = re.compile(f"({SENTENCE_END.pattern})")
_MARKER = re.compile(r"\[\[src:([0-9a-f]+)\]\]")


@dataclass
class VerificationResult:
    """The checked text and what the check found."""

    text: str
    checked: int
    supported: int
    removed: int
    method: str
    reasoning: str
    costs: list[CostEntry]


def claims_with_citations(text: str) -> list[tuple[str, str]]:
    """(claim text without markers, cited source id) for every citation in `text`."""
    pairs = []
    for sentence in SENTENCE_END.split(text):
        ids = cited_source_ids(sentence)
        claim = _MARKER.sub("", sentence).strip()
        for sid in ids:
            if claim:
                pairs.append((claim, sid))
    return pairs


def lexical_support(claim: str, snippet: str) -> bool:
    """A cheap stand-in for the judge: does the source share enough content words with the claim?"""
    words = content_words(claim)
    if not words:
        return True
    return len(words & content_words(snippet)) / len(words) >= 0.25


def _remove_citation(text: str, claim: str, sid: str) -> str:
    out = []
    for sentence in _SENTENCE_WITH_END.split(text):
        if _MARKER.sub("", sentence).strip() == claim:
            sentence = sentence.replace(f"[[src:{sid}]]", "", 1)
        out.append(sentence)
    return "".join(out)


def verify_citations(
    llm: LLMClient,
    text: str,
    sources: dict[str, dict],
    *,
    node: str,
    branch: str | None,
    judge: str | None = "model",
) -> VerificationResult:
    """Judge every cited claim in `text` against its source; drop the unsupported citations.

    The `judge` is the run's `citation_judge`. With "word_overlap" (the embedded model's setting)
    no model is asked: reading up to 16 claims with their sources costs a 1.5B model on a CPU most
    of a minute per answer, and the grounding check that follows (`synthesis/grounding.py`) tests
    every statement against its sources anyway.
    """
    pairs = [(c, sid) for c, sid in claims_with_citations(text) if sid in sources][:MAX_CLAIMS]
    if not pairs:
        return VerificationResult(text, 0, 0, 0, "none", "", [])
    if judge == "word_overlap":
        supported = [lexical_support(claim, sources[sid].get("snippet", "")) for claim, sid in pairs]
        why = "Checked by word overlap: the local model is not asked to judge citations."
        return _drop_unsupported(text, pairs, supported, "lexical", why, [])
    listing = "\n".join(
        f"{n}. Claim: {claim}\n   Source: {sources[sid].get('title', '')}: {sources[sid].get('snippet', '')[:500]}"
        for n, (claim, sid) in enumerate(pairs, start=1)
    )
    system, user = render_prompt("verify_citations", claims=listing)
    costs: list[CostEntry] = []
    try:
        out, costs = llm.structured(
            "verify_citations", CitationCheckOutput, system, user, node=node, branch=branch, max_tokens=400
        )
        verdicts = {c.claim: c.supported for c in out.checks}
        method, reasoning = "llm", out.reasoning
        # claims the judge skipped fall back to the lexical check
        supported = [
            verdicts.get(n, lexical_support(claim, sources[sid].get("snippet", "")))
            for n, (claim, sid) in enumerate(pairs, start=1)
        ]
    except StructuredOutputError as exc:
        costs = exc.costs
        method, reasoning = "lexical", f"The citation judge failed ({exc.user_message}); used word overlap."
        supported = [lexical_support(claim, sources[sid].get("snippet", "")) for claim, sid in pairs]
    return _drop_unsupported(text, pairs, supported, method, reasoning, costs)


def _drop_unsupported(
    text: str,
    pairs: list[tuple[str, str]],
    supported: list[bool],
    method: str,
    reasoning: str,
    costs: list[CostEntry],
) -> VerificationResult:
    """`text` without the citations judged unsupported, and the counts."""
    removed = 0
    for ok, (claim, sid) in zip(supported, pairs, strict=True):
        if not ok:
            text = _remove_citation(text, claim, sid)
            removed += 1
    return VerificationResult(text, len(pairs), sum(supported), removed, method, reasoning, costs)
