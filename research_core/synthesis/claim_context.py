"""What the grounding check knows while it walks a text: each source's evidence and the question
(`ClaimContext`), and what a reader has read so far (`Walk`); and how a citation is written."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from research_core.synthesis.evidence import Evidence

MARKER = re.compile(r"\s*\[\[src:([^\]]+)\]\]")


def with_marker(sentence: str, sid: str) -> str:
    """Put a citation before the sentence's final punctuation."""
    match = re.search(r"([.!?。！？]+[\"')\]]*)$", sentence)
    if match:
        return f"{sentence[: match.start()].rstrip()} [[src:{sid}]]{match.group(1)}"
    return f"{sentence.rstrip()} [[src:{sid}]]"


@dataclass(frozen=True)
class ClaimContext:
    """What every sentence of one text is checked against: each source's evidence, the question's
    subjects (names) and its words (the topic), and the side of a comparison a branch's answer is
    about (a sentence naming no documented subject speaks of it)."""

    evidence: Mapping[str, Evidence]
    names: tuple[str, ...] = ()
    topic: str = ""
    side: tuple[str, ...] = ()  # the comparison's side the text answers for (`branch_side`)

    @property
    def texts(self) -> dict[str, str]:
        """Source id -> its evidence text."""
        return {sid: e.text for sid, e in self.evidence.items()}


@dataclass
class Walk:
    """What the walk through a text knows at a sentence: the statements kept so far (and those of
    the text around it), the subjects its section heading names, and what a reader has just read
    (the heading or label and the sentences since, up to `BEFORE_SENTENCES`)."""

    seen: list[str] = field(default_factory=list)
    implied: list[str] = field(default_factory=list)
    heading: str = ""
    recent: list[str] = field(default_factory=list)

    @property
    def before(self) -> str:
        """The heading or label and the last sentences read."""
        return " ".join([self.heading, *self.recent[-BEFORE_SENTENCES:]])

    def read(self, sentence: str) -> None:
        """Note a sentence the reader has read (kept in the text)."""
        self.recent.append(MARKER.sub("", sentence).strip())


# the sentences before a statement a reader still has in mind when it says "this setting"
BEFORE_SENTENCES = 2
