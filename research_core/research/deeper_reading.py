"""Reading deeper: a later step reads the rest of the passages the branch's findings cite before searching again.

An extraction prompt for the embedded model shows a 350-character window of each passage; the
library's passages run to 1,500. The first step of "What must be done in SQLite before foreign key
constraints can be enforced?" found SQLite's pragma page and showed "This pragma is a no-op within
a transaction ..."; the rest of that passage says "PRAGMA foreign_keys = boolean; Query, set, or
clear the enforcement of foreign key constraints. ... the default setting for foreign key
enforcement is OFF", and no step showed it. The second step then asked the model for new queries
(half a minute of prompt reading on two cores), found the same pages and showed their next passages.

So when a branch's findings cover every part of its question and the last step found something,
its next step with the embedded model searches nothing: it shows, for each page its findings cite
(most cited first), the best window of what that passage's shown window left out (`rest_of`), and
where nothing is left, the page's next passage (`shown_passages.further_passages`). A branch whose
cited pages have nothing more to show searches as before.
"""

from __future__ import annotations

from collections import Counter

from research_core.configuration import RunConfig
from research_core.research.quotes import statements_of
from research_core.research.shown_passages import further_passages, passage_key
from research_core.schemas import Source, SubQuestion, stable_id
from research_core.text.windows import best_window

# how much of a line must appear in the shown window for the line to count as shown (a sentence
# longer than the window is shown cut)
SHOWN_PREFIX_CHARS = 60


def reads_deeper(config: RunConfig, branch: SubQuestion, iteration: int, known: list[dict], missing: list[str]) -> bool:
    """Whether this step reads deeper instead of searching: the embedded model's later step of a
    question whose findings leave nothing `missing`, after a step that found something."""
    return bool(
        config.engine_first_queries
        and branch.kind == "question"
        and iteration > 1
        and known
        and not missing
        and branch.last_outcome == "good"
    )


def rest_of(source: Source, focus: str, chars: int) -> Source | None:
    """`source` less the sentences of the window a prompt showed of it for `focus`: its passage's
    unread part, as a source of its own id; None when the window showed all of it."""
    page = statements_of(source.snippet)
    window = best_window(page, focus, chars, "\n")
    rest = [line for line in page.split("\n") if line.strip() and line.strip()[:SHOWN_PREFIX_CHARS] not in window]
    if not rest:
        return None
    return source.model_copy(update={"id": stable_id(source.id, "rest"), "snippet": "\n".join(rest)})


def cited_first(known: list[dict], sources: list[dict]) -> list[Source]:
    """The sources the branch's findings cite, most cited first (ties in the order first cited)."""
    counts = Counter(sid for f in known for sid in f.get("source_ids") or [])
    by_id = {str(s["id"]): s for s in sources}
    order = [sid for sid, _ in counts.most_common() if sid in by_id]
    return [Source.model_validate(by_id[sid]) for sid in order]


def deeper_passages(
    branch: SubQuestion,
    known: list[dict],
    sources: list[dict],
    backends: list[object],
    focus: str,
    chars: int,
    limit: int,
) -> tuple[list[Source], list[str]]:
    """Up to `limit` passages the branch has not been shown, of the pages its findings cite (the rule
    above), and their keys."""
    shown = set(branch.shown_passages)
    out: list[Source] = []
    keys: list[str] = []
    exhausted: list[Source] = []
    for source in cited_first(known, sources):
        rest = rest_of(source, focus, chars)
        key = passage_key(rest, focus, chars) if rest is not None else ""
        if rest is None or key in shown:
            exhausted.append(source)
            continue
        shown.add(key)
        out.append(rest)
        keys.append(key)
    if len(out) < limit and exhausted:
        further, further_keys = further_passages(exhausted, backends, focus, sorted(shown), chars)
        out += further
        keys += further_keys
    return out[:limit], keys[:limit]
