"""Scaffolding of a grounded text: the lines around statements (headings, bold labels, lead-ins,
list markers, code fences) and what to drop once grounding has removed what they framed.

A heading or label nothing is left under, a lead-in ("The levels are:") no list follows, and a
fragment the model broke off ("The") say nothing; they go.
"""

from __future__ import annotations

import re

from research_core.text.sentence_ends import SENTENCE_BREAK

# a list item's marker: "- ", "* ", "1. "
BULLET = re.compile(r"^(\s*(?:[-*+]|\d+[.)])\s+)")
# a code fence
FENCE = re.compile(r"^(```|~~~)")
# a bold label such as "**Verdict: validated** (confidence 7/10)" states no fact of its own
LABEL = re.compile(r"^\*\*[^*]+\*\*\s*(\([^)]*\))?\s*[.:]?$")
# a sentence shorter than this is not a statement to check
MIN_CLAIM_WORDS = 5
# a line that only labels what follows: "**PostgreSQL:**", "Key points:"
LABEL_LINE = re.compile(r"^(?:[-*+]\s+)?\*\*[^*]{1,60}\*\*\s*:?\s*$|^[^.!?\[]{1,40}:$")
# a heading, a bold label or a short line ending in a colon, as a list item ("2. **Syntax**:") or not
_SCAFFOLD = re.compile(
    r"^\s*(?:#{1,6}\s+.*|(?:(?:[-*+]|\d+[.)])\s+)?\*\*[^*]+\*\*\s*:?\s*|(?:(?:[-*+]|\d+[.)])\s+)?[^.!?]{1,60}:)\s*$"
)


def drop_dangling(lines: list[str]) -> list[str]:
    """`lines` without what leads nowhere: a lead-in sentence ending in a colon ("The possible
    values for isolation_level are:") that no list, table or code block follows (grounding removed
    the list, or the model never wrote it), and a fragment the model stopped in the middle of
    ("The"): a line of prose under `MIN_CLAIM_WORDS` words without a full stop that ends its section."""
    kept: list[str] = []
    fenced = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if FENCE.match(stripped):
            fenced = not fenced
        if fenced or FENCE.match(stripped) or _CITED_CODE.match(stripped):
            kept.append(line)
            continue
        if not stripped or stripped.startswith(("#", "|")) or LABEL_LINE.match(stripped):
            kept.append(line)
            continue
        after = next((x.strip() for x in lines[i + 1 :] if x.strip()), "")
        bullet = BULLET.match(line)
        prefix = bullet.group(1) if bullet else ""
        body = line[len(prefix) :].strip()
        short = not bullet and len(re.findall(r"\w+", stripped)) < MIN_CLAIM_WORDS
        if short and not re.search(r"[.!?:。！？)\]]$", stripped) and (not after or after.startswith("#")):
            continue  # the last words of a section, broken off
        if body.endswith(":") and not LABEL.match(body) and not _LISTED.match(after):
            body = " ".join(SENTENCE_BREAK.split(body)[:-1])
            if not body.strip() or LABEL.match(body.strip()):
                continue
            line = prefix + body
        kept.append(line)
    return kept


_CITED_CODE = re.compile(r"^\(code as in (?:\[\[src:[^\]]+\]\])\)$")
# what a lead-in introduces: a list item, a table row or a code block
_LISTED = re.compile(r"^(?:[-*+]\s|\d+[.)]\s|\||```|~~~)")


def drop_empty_scaffolding(lines: list[str]) -> list[str]:
    """`lines` without headings and bold labels ("**PostgreSQL:**") that nothing but other headings,
    labels or blank lines follow: what is left of a section whose statements grounding removed. A
    label that is a list item ("2. **SQLite**:") heads only its indented items: once they are gone,
    a paragraph after a blank line is not its body (it would put SQLite's name over a PostgreSQL fact)."""
    kept: list[str] = []
    for i, line in enumerate(lines):
        if _SCAFFOLD.match(line):
            level = len(line) - len(line.lstrip("#")) if line.lstrip().startswith("#") else 7
            rest = lines[i + 1 :]
            has_body = False
            item, blank = bool(BULLET.match(line)), False
            for after in rest:
                if not after.strip():
                    blank = True
                    continue
                if item and blank and after == after.lstrip() and not BULLET.match(after):
                    break  # a list item's label holds its indented items, not the paragraph after the list
                if after.lstrip().startswith("#"):
                    depth = len(after.lstrip()) - len(after.lstrip().lstrip("#"))
                    if depth <= level:
                        break  # the next section at this level or above: this one had no body
                    continue
                if _SCAFFOLD.match(after):
                    if level == 7:
                        break  # the next label: this label had no body
                    continue
                has_body = True
                break
            if not has_body:
                continue
        kept.append(line)
    return kept


# a line that is only citation markers, as a list item or not: "  - [[src:386a8f0bafee]]"
_CITATIONS_ONLY = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?((?:\[\[src:[0-9a-f]+\]\]\s*)+)$")


def citations_to_their_line(text: str) -> str:
    """Citation markers the model wrote on a line of their own (a sub-item "- [[src:...]]" under the
    statement they cite) joined to the end of the statement above, so the statement is checked
    against them; a marker line with no statement above it (after a heading, at the start) goes.
    Left alone, such a line outlives the statement grounding removes: a list of bare "- [1]"."""
    out: list[str] = []
    for line in text.splitlines():
        only = _CITATIONS_ONLY.match(line)
        if not only:
            out.append(line)
            continue
        above = next((i for i in range(len(out) - 1, -1, -1) if out[i].strip()), None)
        if above is not None and not _SCAFFOLD.match(out[above]) and not FENCE.match(out[above].strip()):
            out[above] = f"{out[above].rstrip()} {' '.join(only.group(1).split())}"
            del out[above + 1 :]  # the blank lines the model left between the statement and its markers
    return "\n".join(out)


# a code fence opened at the end of a line of text: "- **Example:** ```sql"
_TRAILING_FENCE = re.compile(r"^(\s*(?:(?!```|~~~).)*?\S)\s*((?:```|~~~)[\w+-]*)\s*$")
# an entry of a reference list the model wrote itself: "[[src:e919431f7cd7]] 12.3. Controlling Text Search"
_REFERENCE_ENTRY = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?\[\[src:[0-9a-f]+\]\]\s*\S")


def fences_on_their_line(text: str) -> str:
    """A code fence the model opened at the end of a line of text ("- **Example:** ```sql") moved to
    a line of its own. Left there, the fence is not seen to open: the block's code is read as
    prose, its closing fence opens a block instead, and that block swallows the text after it up to
    the next fence, with the labels and statements in it."""
    out: list[str] = []
    for line in text.splitlines():
        opened = _TRAILING_FENCE.match(line)
        if opened and not FENCE.match(line.strip()):
            out += [opened.group(1), opened.group(2)]
        else:
            out.append(line)
    return "\n".join(out)


def without_reference_entries(text: str) -> str:
    """`text` without the lines that open with a citation marker and go on to name its page: a
    reference list the model wrote ("**References:**" then "[[src:...]] 12.3. Controlling Text
    Search"), which repeats the report's own list of sources with numbers of its own."""
    return "\n".join(line for line in text.splitlines() if not _REFERENCE_ENTRY.match(line))
