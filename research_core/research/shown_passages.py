"""Passages a branch has already shown the model, so a later iteration does not show them again.

A small model shown the same passage twice writes the same finding twice (refused as a repeat, or
refused again as unsupported) and costs the run half a minute each time. An iteration therefore
shows only passages this branch has not read yet; when none is left, no extraction call is made and
the branch's next searches are reformulated.
"""

from __future__ import annotations

from research_core.schemas import Source, stable_id
from research_core.text.windows import best_window


def passage_key(source: Source, focus: str, chars: int) -> str:
    """The id of what the extraction prompt shows of `source`: its page and the window chosen for `focus`."""
    return stable_id(source.id, best_window(source.snippet, focus, chars))


def not_shown_before(
    sources: list[Source], shown: list[str], focus: str, chars: int
) -> tuple[list[Source], list[str], list[Source]]:
    """(sources whose passage is new to the branch, their keys, sources skipped as already shown)."""
    seen = set(shown)
    fresh: list[Source] = []
    keys: list[str] = []
    skipped: list[Source] = []
    for source in sources:
        key = passage_key(source, focus, chars)
        if key in seen:
            skipped.append(source)
            continue
        seen.add(key)
        fresh.append(source)
        keys.append(key)
    return fresh, keys, skipped
