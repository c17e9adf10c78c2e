"""A branch's answer assembled from its findings' quotes, for a model too weak to retell them.

Read sentence by sentence, the embedded model's written answers were where its reports went wrong:
of the hierarchical sentences it wrote, a quarter were not what their page says (a qualifier
dropped, "usually" made "always", one process's callback given to another), while the findings
it had pointed at, listed as they were quoted, were right 50 times in 51. And writing is most of
a run's time: the model writes about 22 tokens a second. So with `quoted_answers` (the embedded
model's setting) a question branch's answer is its findings' quotes, each cited, the ones sharing
most words with the branch's question first. A branch whose findings are all in its drill-down
children opens with the children's most direct sentences (`synthesis.lead`), as its children's
answers follow it in the report.

A report asked for in another language than the sources' is still written by the model: a quote
cannot translate itself (`answers_by_quote`).
"""

from __future__ import annotations

from collections.abc import Collection

from research_core.configuration import RunConfig
from research_core.text.similarity import is_near_duplicate
from research_core.text.support import stems
from research_core.text.words import looks_english

# a quote this similar to one already listed repeats it
REPEAT_BAR = 0.8


def answers_by_quote(config: RunConfig, question: str) -> bool:
    """Whether a run's answers are its findings' quotes: `quoted_answers` is on, and the report is to
    be in English (the question is, and no other report language is asked for)."""
    language = (config.report_language or "").strip().lower()
    return bool(config.quoted_answers) and looks_english(question) and language in ("", "english", "en")


def finding_statement(finding: dict) -> str:
    """What the answer states for a finding: its quote (the passage's own sentences), or its text
    when it carries none (a finding stored before quotes were kept)."""
    return " ".join(str(finding.get("quote") or finding["text"]).split())


def quoted_answer(findings: list[dict], known: Collection[str], question: str) -> str:
    """The findings' quotes as a bullet list citing their sources by marker (those in `known`), most
    on `question` first (word stems shared; ties keep the order found), each quote once. A quote's
    own "[1]" (code, a footnote) stays text: only the markers added here are citations."""
    wanted = stems(question)
    ranked = sorted(enumerate(findings), key=lambda pair: (-len(stems(finding_statement(pair[1])) & wanted), pair[0]))
    lines: list[str] = []
    said: list[str] = []
    for _, finding in ranked:
        statement = finding_statement(finding)
        refs = "".join(f"[[src:{sid}]]" for sid in finding.get("source_ids", []) if sid in known)
        if not refs or is_near_duplicate(statement, said, REPEAT_BAR) is not None:
            continue
        said.append(statement)
        lines.append(f"- {statement} {refs}")
    return "\n".join(lines)
