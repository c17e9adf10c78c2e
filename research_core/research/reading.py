"""Reading: the passages a research step shows the extraction prompt.

Each kept web source's snippet becomes the passages of its page about the branch
(`sources.reader`); a passage the branch was shown before is skipped, and a document the library
can read further shows its next passage instead (`shown_passages`). How many sources and how long
a passage the prompt holds depends on the model (`prompt_budget`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from research_core.research.shown_passages import further_passages, not_shown_before
from research_core.schemas import LogEntry, Source, SubQuestion
from research_core.services import Services
from research_core.sources.reader import ReadStats, read_sources


def prompt_budget(services: Services) -> tuple[int, int]:
    """(sources per extraction prompt, characters per snippet): the run's settings, fewer for a small model."""
    return services.config.sources_per_prompt, services.config.snippet_chars


@dataclass
class Shown:
    """What a step shows the extraction prompt: the sources with their passages, the keys of those
    passages (remembered on the branch), how reading went, and its log."""

    sources: list[Source]
    keys: list[str]
    stats: ReadStats
    log: list[dict] = field(default_factory=list)


def passages_to_show(services: Services, branch: SubQuestion, topic: str, sources: list[Source], chars: int) -> Shown:
    """Read `sources` (their passages about `topic`, `chars` each), keep those new to the branch, and
    show the next passage of a skipped document where its backend reads further."""
    read, log, stats = read_sources(services, topic, sources, services.config, max_chars=chars)
    fresh, shown, skipped = not_shown_before(read, branch.shown_passages, topic, chars)
    further, further_keys = further_passages(
        skipped, services.usable_backends(), topic, [*branch.shown_passages, *shown], chars
    )
    if skipped:
        names = "; ".join(s.title or s.url for s in skipped[:5])
        log.append(
            LogEntry(
                node="research_step",
                branch=branch.id,
                kind="evidence",
                message=f"Skipped {len(skipped)} result(s) this branch has already read: {names}"
                + (f"; showing the next passage of {len(further)} of them" if further else ""),
            ).model_dump()
        )
    return Shown([*fresh, *further], [*shown, *further_keys], stats, log)
