"""Smarter retries: per-branch search diagnostics and which backends a branch keeps using."""

from __future__ import annotations

from collections.abc import Mapping

OUTCOME_KEYS = ("errors", "empty", "irrelevant", "good")


def iteration_outcome(num_sources: int, num_findings: int) -> str:
    """How a research iteration went: no_results, irrelevant (results but nothing usable) or good."""
    if num_sources == 0:
        return "no_results"
    return "good" if num_findings else "irrelevant"


def update_stats(
    stats: Mapping[str, Mapping[str, int]],
    searched: Mapping[str, Mapping[str, int]],
    cited_backends: set[str],
) -> dict[str, dict[str, int]]:
    """Add one iteration's per-backend outcomes to a branch's running diagnostics.

    `searched[name]` counts that backend's `errors` and `results` this iteration; a backend with
    results but none cited counts as irrelevant, with cited results as good.
    """
    out = {name: {k: int(v.get(k, 0)) for k in OUTCOME_KEYS} for name, v in stats.items()}
    for name, counts in searched.items():
        row = out.setdefault(name, dict.fromkeys(OUTCOME_KEYS, 0))
        row["errors"] += int(counts.get("errors", 0))
        if counts.get("results", 0) == 0 and not counts.get("errors", 0):
            row["empty"] += 1
        elif counts.get("results", 0):
            row["good" if name in cited_backends else "irrelevant"] += 1
    return out


def backends_to_drop(
    stats: Mapping[str, Mapping[str, int]],
    active: list[str],
    sticky: list[str],
    max_failures: int,
) -> list[tuple[str, str]]:
    """Backends that failed repeatedly for this branch, with the reason; never a sticky one or the last one."""
    drops: list[tuple[str, str]] = []
    remaining = list(active)
    for name in active:
        row = stats.get(name, {})
        failures = row.get("errors", 0) + row.get("empty", 0) + row.get("irrelevant", 0)
        if name in sticky or row.get("good", 0) or failures < max_failures or len(remaining) <= 1:
            continue
        remaining.remove(name)
        detail = ", ".join(f"{k} {row.get(k, 0)}" for k in ("errors", "empty", "irrelevant") if row.get(k, 0))
        drops.append((name, f"{failures} failed searches ({detail}) and no useful result"))
    return drops
