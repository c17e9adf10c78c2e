"""The report of a hierarchical run, assembled by the engine around the model's overview.

A small model asked to integrate several sub-answers into one report drops most of what they
found. So the model writes only an overview (a direct answer, then sections on how the parts
connect and a conclusion), and the engine assembles the report:
1. the overview's lead (its text before the first "##" heading): the direct answer; when it cites
   nothing, the branch answers' most direct sentences follow it (`synthesis.lead`);
2. one section per answered branch, in tree order, holding the branch's own grounded answer;
3. the overview's remaining sections (themes, conclusion);
4. "## Limitations": one "Not covered: ..." line per gap the coverage step recorded.

Sections the model writes about limitations, caveats or sources are left out: the engine writes
the limitations from what was researched and appends the source list itself. So are sections that
repeat a branch section (a small model often copies the sub-answers into its overview, heading
and all, then runs out of tokens before its conclusion).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_LEFT_OUT = re.compile(r"limitation|caveat|\bgaps?\b|open question|sources|references", re.IGNORECASE)
_LEAD_HEADING = re.compile(r"overview|summary|direct answer|short answer|introduction|^answer", re.IGNORECASE)


def split_lead(text: str) -> tuple[str, str]:
    """(the direct answer, the rest from the next heading on).

    The direct answer is the text before the first heading, or, when the text opens with an
    "Overview" or "Summary" heading, that section's body.
    """
    lines = text.strip().splitlines()
    starts = [i for i, line in enumerate(lines) if _HEADING.match(line.strip())]
    if not starts:
        return text.strip(), ""
    lead = "\n".join(lines[: starts[0]]).strip()
    heading = _HEADING.match(lines[starts[0]].strip())
    if not lead and heading and _LEAD_HEADING.search(heading.group(1)):
        end = starts[1] if len(starts) > 1 else len(lines)
        return "\n".join(lines[starts[0] + 1 : end]).strip(), "\n".join(lines[end:]).strip()
    return lead, "\n".join(lines[starts[0] :]).strip()


def top_level_headings(text: str) -> str:
    """Every heading of `text` at level two, so the overview's sections sit beside the branch sections."""
    return "\n".join(f"## {m.group(1)}" if (m := _HEADING.match(line.strip())) else line for line in text.splitlines())


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


_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s+")


def _heading_key(heading: str) -> str:
    return " ".join(_NUMBERED.sub("", heading.strip()).lower().rstrip("?:. ").split())


def drop_repeated_sections(text: str, sections: list[str]) -> str:
    """`text` without the sections that repeat a branch section: a heading numbered like one
    ("1 ...", "2.1 ...") or naming a branch's question."""
    questions = {
        _heading_key(m.group(1)) for section in sections if (m := _HEADING.match(section.strip().splitlines()[0]))
    }
    repeated = re.compile(
        "|".join([r"^\d+(?:\.\d+)*\.?\s", *(re.escape(q) + "$" for q in questions if q)]), re.IGNORECASE
    )
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            name = heading.group(1).strip()
            skipping = bool(repeated.search(name) or repeated.search(_heading_key(name)))
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


_CITED = re.compile(r"\[\d+\]")


def assemble_report(overview: str, sections: list[str], gaps: Iterable[str], picked: str = "") -> str:
    """The report: the overview's lead, the branch sections, the overview's other sections, the limitations.

    A lead that cites nothing (the model's was removed, or only frames what follows) is followed by
    `picked`, the direct answer the engine picked from the branch answers (`synthesis.lead`)."""
    lead, rest = split_lead(drop_repeated_sections(drop_sections(overview), sections))
    if not _CITED.search(lead) and picked:
        lead = f"{lead}\n\n{picked}" if lead else picked
    parts = [lead, *sections, top_level_headings(rest), limitations(gaps)]
    return "\n\n".join(p for p in parts if p.strip())
