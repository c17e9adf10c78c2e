"""Passages a branch has already shown the model, so a later iteration does not show them again.

A small model shown the same passage twice writes the same finding twice (refused as a repeat, or
refused again as unsupported) and costs the run half a minute each time. An iteration therefore
shows only passages this branch has not read yet. A library document whose best passage was read
offers its next passage for the branch instead (`further_passages`): a search that finds SQLite's
write-ahead-log page again should show more of that page, not nothing. When nothing new is left, no
extraction call is made and the branch's next searches are reformulated.
"""

from __future__ import annotations

from collections.abc import Iterable

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


def further_passages(
    skipped: list[Source], backends: Iterable[object], focus: str, shown: list[str], chars: int
) -> tuple[list[Source], list[str]]:
    """(for each skipped source of a backend that reads further into a document, i.e. has
    `passages_of(url, query)`, its best passage for `focus` the branch has not read; their keys)."""
    backends = list(backends)
    seen = set(shown)
    out: list[Source] = []
    keys: list[str] = []
    for source in skipped:
        reader = document_reader(source, backends)
        for passage in reader.passages_of(source.url, focus) if reader is not None else []:
            key = passage_key(passage, focus, chars)
            if key not in seen:
                seen.add(key)
                out.append(passage.model_copy(update={"relevance": source.relevance}))
                keys.append(key)
                break
    return out, keys


def document_reader(source: Source, backends: Iterable[object]) -> object | None:
    """The backend that found `source` when it reads further into a document (has
    `passages_of(url, query)`), else None."""
    return next((b for b in backends if getattr(b, "name", "") == source.backend and hasattr(b, "passages_of")), None)
