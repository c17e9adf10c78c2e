"""How many steps and dollars each branch chain starting now may use before `coordinate` looks again.

Pure rules, fixed per chain when it starts, so a resumed run makes the same decisions as an
uninterrupted one.
"""

from __future__ import annotations

from research_core.schemas import SubQuestion


def chain_allotments(
    left: dict[str, int],
    iterations_left: int,
    cost_headroom_usd: float,
    *,
    segment: int | None,
    single_step: bool,
) -> dict[str, tuple[int, float]]:
    """Split the run's remaining iterations and dollars between the chains starting now.

    `left` maps each branch, highest priority first, to the iterations it has left of its own
    allocation. Returns {branch id: (max steps, max dollars)}. When the allocations fit in the
    run's remaining iterations each chain may use all of its own; otherwise the remaining
    iterations are shared out smallest need first, so no chain is allotted steps it cannot use
    and, among equal needs, the higher priority gets the remainder. Every chain may take at least
    one step (the coordinator only starts chains while the caps allow research). No chain runs
    more than `segment` steps (see `segment_length`; None: no limit), or one in step mode.
    """
    if not left:
        return {}
    ids = list(left)
    need = {bid: max(1, int(n)) for bid, n in left.items()}
    remaining = max(0, iterations_left)
    steps: dict[str, int] = {}
    for k, bid in enumerate(sorted(ids, key=lambda b: (need[b], -ids.index(b)))):
        give = max(1, min(need[bid], remaining // (len(ids) - k)))
        steps[bid] = give
        remaining -= give
    dollars = max(0.0, cost_headroom_usd) / len(ids)
    limit = 1 if single_step else segment
    return {bid: (steps[bid] if limit is None else min(limit, steps[bid]), dollars) for bid in ids}


def allocation_left(branch: SubQuestion) -> int:
    """Research iterations the branch has left of its allocation (at least one)."""
    return max(1, (branch.allocated_iterations or 1) - branch.iteration_count)


def segment_length(branches: list[SubQuestion]) -> int:
    """How many steps the chains starting now may run before `coordinate` looks again.

    Used when something waits for a branch to finish (a branch waiting for a free slot, a
    possible plan revision or drill-down, a parent waiting for its children): the fewest
    iterations any of the chains has left of its allocation. A LangGraph superstep ends only
    when its last chain ends, so a chain running past the moment another branch is expected to
    finish would hold that waiting work back. Branches of equal budgets run to their end in one go.
    """
    return min((allocation_left(b) for b in branches), default=1)
