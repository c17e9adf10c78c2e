"""Citations: map the model's [n] to real sources, drop the ones that point nowhere.

Branch syntheses are stored with markers `[[src:<source id>]]` so one global numbering can be
applied when the report is assembled, whatever order the branches finished in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_NUMBERED = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
_MARKER = re.compile(r"\[\[src:([0-9a-f]+)\]\]")


def numbered_to_markers(text: str, local: Mapping[int, str]) -> tuple[str, int]:
    """Replace `[n]` (and `[1, 2]`) by source markers; citations of unknown numbers are removed.

    Returns the new text and how many citations were removed.
    """
    removed = 0

    def repl(match: re.Match[str]) -> str:
        nonlocal removed
        out = []
        for part in match.group(1).split(","):
            n = int(part.strip())
            if n in local:
                out.append(f"[[src:{local[n]}]]")
            else:
                removed += 1
        return "".join(out)

    return _NUMBERED.sub(repl, text), removed


def cited_source_ids(text: str) -> list[str]:
    """Source ids cited by markers in `text`, in order of first appearance."""
    seen: dict[str, None] = {}
    for sid in _MARKER.findall(text):
        seen.setdefault(sid, None)
    return list(seen)


def finding_source_ids(findings: Iterable[Mapping]) -> list[str]:
    """Source ids the findings cite, each once, in order of first citation."""
    return list(dict.fromkeys(sid for f in findings for sid in f.get("source_ids", [])))


def markers_to_numbered(text: str, numbering: Mapping[str, int]) -> str:
    """Render markers as `[n]` with the global numbering; markers of unknown sources vanish."""
    return _MARKER.sub(lambda m: f"[{numbering[m.group(1)]}]" if m.group(1) in numbering else "", text)


def global_numbering(texts: Iterable[str]) -> dict[str, int]:
    """Number sources 1..n in the order the texts first cite them."""
    numbering: dict[str, int] = {}
    for text in texts:
        for sid in cited_source_ids(text):
            numbering.setdefault(sid, len(numbering) + 1)
    return numbering


def drop_unknown_numbers(text: str, count: int) -> tuple[str, int]:
    """Remove citations `[n]` with n outside 1..count; return the text and how many were removed."""
    removed = 0

    def repl(match: re.Match[str]) -> str:
        nonlocal removed
        kept = []
        for part in match.group(1).split(","):
            n = int(part.strip())
            if 1 <= n <= count:
                kept.append(f"[{n}]")
            else:
                removed += 1
        return "".join(kept)

    return _NUMBERED.sub(repl, text), removed
