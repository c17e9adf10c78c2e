"""The report of a hierarchical run, assembled by the engine around the model's overview.

A small model asked to integrate several sub-answers into one report drops most of what they
found. So the model writes only an overview (a direct answer, then sections on how the parts
connect and a conclusion), and the engine assembles the report:
1. the overview's lead (its text before the first "##" heading): the direct answer;
2. one section per answered branch, in tree order, holding the branch's own grounded answer;
3. the overview's remaining sections (themes, conclusion);
4. "## Limitations": one "Not covered: ..." line per gap the coverage step recorded.

Sections the model writes about limitations, caveats or sources are left out: the engine writes
the limitations from what was researched and appends the source list itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_LEFT_OUT = re.compile(r"limitation|caveat|\bgaps?\b|open question|sources|references", re.IGNORECASE)


def split_lead(text: str) -> tuple[str, str]:
    """(text before the first Markdown heading, the rest from that heading on)."""
    lines = text.strip().splitlines()
    for i, line in enumerate(lines):
        if _HEADING.match(line.strip()):
            return "\n".join(lines[:i]).strip(), "\n".join(lines[i:]).strip()
    return text.strip(), ""


def drop_sections(text: str, pattern: re.Pattern[str] = _LEFT_OUT) -> str:
    """`text` without the sections whose heading matches `pattern` (up to the next heading of any level)."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            skipping = bool(pattern.search(heading.group(1)))
        if not skipping:
            kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def branch_section(number: str, question: str, answer: str) -> str:
    """A branch answer under a heading whose level follows its depth (1 -> "##", 1.2 -> "###")."""
    level = "#" * min(6, 2 + number.count("."))
    return f"{level} {number} {' '.join(question.split())}\n\n{answer.strip()}"


def limitations(gaps: Iterable[str]) -> str:
    """The limitations section: one "Not covered:" line per gap, or nothing when there is no gap."""
    lines = [f"- Not covered: {' '.join(g.split())}" for g in gaps if g.strip()]
    return "## Limitations\n\n" + "\n".join(lines) if lines else ""


def assemble_report(overview: str, sections: list[str], gaps: Iterable[str]) -> str:
    """The report: the overview's lead, the branch sections, the overview's other sections, the limitations."""
    lead, rest = split_lead(drop_sections(overview))
    parts = [lead, *sections, rest, limitations(gaps)]
    return "\n\n".join(p for p in parts if p.strip())
