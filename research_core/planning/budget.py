"""Iteration and cost allocation: pure functions, no I/O.

The rule: reserve iterations for decomposition (1), one synthesis per branch (N) and the
meta-synthesis (1); split the rest across branches by priority weight and clamp each share to
[sub_question_min_iterations, sub_question_max_iterations]. We split with the largest-remainder
method so the shares add up to the research budget instead of silently losing the fractions that
plain truncation drops.

`plan_budget` is the one place a plan's funding and estimate are computed: the review gate, the
plan editor's table, the command line's preflight and `allocate_budget` all call it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from research_core.configuration import RunConfig


def reserved_iterations(num_branches: int) -> int:
    """Iterations kept back for decomposition, one synthesis per branch and the meta-synthesis."""
    return 1 + num_branches + 1


def split_by_priority(total: int, priorities: Sequence[float]) -> list[int]:
    """Split `total` whole iterations in proportion to `priorities` (largest remainder).

    Ties in the remainder go to the higher priority, then to the earlier branch, so the
    result is deterministic. All-zero priorities are treated as equal weights.
    """
    if not priorities:
        return []
    total = max(0, total)
    weights = [max(0.0, p) for p in priorities]
    weight_sum = sum(weights)
    if weight_sum <= 0:
        weights = [1.0] * len(priorities)
        weight_sum = float(len(priorities))
    exact = [total * w / weight_sum for w in weights]
    shares = [math.floor(x + 1e-9) for x in exact]
    leftover = total - sum(shares)
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - shares[i]), -weights[i], i))
    for i in order[:leftover]:
        shares[i] += 1
    return shares


def clamp(value: int, low: int, high: int) -> int:
    """Clamp `value` into [low, high]."""
    return max(low, min(value, high))


def allocate_iterations(
    max_iterations: int,
    priorities: Sequence[float],
    min_per_branch: int,
    max_per_branch: int,
) -> list[int]:
    """Iterations per branch for a hierarchical run: the unreserved iterations split by priority, clamped.

    >>> allocate_iterations(20, [1.0, 0.9, 0.9, 1.0], 2, 5)
    [4, 3, 3, 4]
    """
    research = max_iterations - reserved_iterations(len(priorities))
    return [clamp(s, min_per_branch, max_per_branch) for s in split_by_priority(research, priorities)]


def run_iteration_cap(max_iterations: int, active_branches: int, *, flat: bool) -> int:
    """The ceiling on a running run's research iterations, drill-downs and revisions included.

    Every active branch may get one iteration when the budget allows less, but the ceiling never
    exceeds `max_iterations`.
    """
    if flat:
        return flat_iterations(max_iterations)
    reserved_cap = max(active_branches, max_iterations - reserved_iterations(active_branches))
    return max(1, min(max_iterations, reserved_cap))


@dataclass(frozen=True)
class Funding:
    """The iterations each branch can expect within the run's ceiling, highest priority first.

    `wanted` is each branch's share by priority (clamped to the per-branch bounds), `shares` what
    the ceiling `cap` leaves for it: lower-priority branches wait for what the others leave, and
    one left with 0 is unfunded (skipped if nothing is left when its turn comes).
    """

    shares: list[int]
    wanted: list[int]
    cap: int
    min_per_branch: int

    @property
    def unfunded(self) -> list[int]:
        """Indexes of the branches the ceiling leaves without iterations."""
        return [i for i, n in enumerate(self.shares) if n == 0]

    @property
    def underfunded(self) -> list[int]:
        """Indexes of the branches left with some iterations, but fewer than their minimum."""
        return [i for i, n in enumerate(self.shares) if 0 < n < min(self.min_per_branch, self.wanted[i])]

    @property
    def funded(self) -> int:
        """How many branches get iterations."""
        return len(self.shares) - len(self.unfunded)


def fund_branches(
    max_iterations: int,
    priorities: Sequence[float],
    min_per_branch: int,
    max_per_branch: int,
) -> Funding:
    """What each branch of a plan can expect, with the run's iteration ceiling applied.

    Each branch wants its `allocate_iterations` share; the ceiling (`run_iteration_cap` over all
    branches, never more than `max_iterations`) is handed out in priority order (ties: the earlier
    branch), as the scheduler runs them, so the shares never add up to more than the run may spend.

    >>> fund_branches(8, [1.0, 0.9, 0.5, 0.2], 2, 5).shares
    [2, 2, 0, 0]
    """
    n = len(priorities)
    cap = run_iteration_cap(max_iterations, n, flat=False)
    wanted = allocate_iterations(max_iterations, priorities, min_per_branch, max_per_branch)
    shares = [0] * n
    left = cap
    for i in sorted(range(n), key=lambda j: (-priorities[j], j)):
        shares[i] = min(wanted[i], left)
        left -= shares[i]
    return Funding(shares, wanted, cap, min_per_branch)


def funding_note(funding: Funding, ids: Sequence[str], max_iterations: int) -> str | None:
    """One line saying which branches the iteration ceiling cannot fund in full and what to do, or None."""
    unfunded = [ids[i] for i in funding.unfunded]
    short = [ids[i] for i in funding.underfunded]
    if not unfunded and not short:
        return None
    parts = []
    if short:
        parts.append(f"{', '.join(short)} {'gets' if len(short) == 1 else 'get'} fewer than the minimum")
    if unfunded:
        parts.append(f"{', '.join(unfunded)} {'waits' if len(unfunded) == 1 else 'wait'} unfunded and will be skipped")
    return (
        f"The iteration budget (max_iterations={max_iterations}) leaves {funding.cap} research iterations, "
        f"not enough for every branch's minimum of {funding.min_per_branch}: {'; '.join(parts)} "
        "unless higher-priority branches finish early. Remove branches, raise max_iterations or lower "
        "sub_question_min_iterations."
    )


def flat_iterations(max_iterations: int) -> int:
    """Research iterations of a flat run: the same total budget, less its one synthesis."""
    return max(1, max_iterations - 1)


@dataclass(frozen=True)
class CostReservation:
    """Money kept back so synthesis still happens when research hits the cost cap."""

    per_branch_synthesis: float
    meta_synthesis: float

    def total(self, num_branches: int) -> float:
        """The whole reservation for `num_branches` branch syntheses plus the meta-synthesis."""
        return self.per_branch_synthesis * num_branches + self.meta_synthesis


# Typical prompt and answer sizes of the calls that follow research, used to price the
# reservation up front: a branch synthesis (and its citation check), the coverage check and the
# meta-synthesis.
SYNTHESIS_TOKENS_IN = 3000
SYNTHESIS_TOKENS_OUT = 800
CITATION_CHECK_TOKENS_IN = 1500
CITATION_CHECK_TOKENS_OUT = 300
COVERAGE_TOKENS_IN = 2000
COVERAGE_TOKENS_OUT = 300
META_TOKENS_IN = 6000
META_TOKENS_OUT = 1500


def _price(tokens_in: int, tokens_out: int, price: tuple[float, float]) -> float:
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


def reserve_synthesis_cost(
    work_price: tuple[float, float],
    synthesis_price: tuple[float, float],
    *,
    verify_citations: bool = False,
    coverage_check: bool = False,
) -> CostReservation:
    """Price the synthesis reservation from per-1M-token prices (input, output) of each tier.

    Citation checks (one per branch) and the coverage check run after research whatever the
    cap says, so they are reserved too when they are switched on.
    """
    per_branch = _price(SYNTHESIS_TOKENS_IN, SYNTHESIS_TOKENS_OUT, work_price)
    if verify_citations:
        per_branch += _price(CITATION_CHECK_TOKENS_IN, CITATION_CHECK_TOKENS_OUT, work_price)
    meta = _price(META_TOKENS_IN, META_TOKENS_OUT, synthesis_price)
    if coverage_check:
        meta += _price(COVERAGE_TOKENS_IN, COVERAGE_TOKENS_OUT, work_price)
    return CostReservation(per_branch_synthesis=per_branch, meta_synthesis=meta)


def estimate_cost_range(
    total_iterations: int,
    num_branches: int,
    work_price: tuple[float, float],
    synthesis_price: tuple[float, float],
) -> tuple[float, float]:
    """A (low, high) cost estimate for a plan, shown before the user approves it.

    One research iteration is two working-model calls (query planning, extraction) of roughly
    1.5k-4k tokens in and 200-500 out.
    """
    res = reserve_synthesis_cost(work_price, synthesis_price)
    synth = res.total(num_branches)

    def call(tin: int, tout: int) -> float:
        return (tin * work_price[0] + tout * work_price[1]) / 1_000_000

    low = total_iterations * 2 * call(1500, 200) + synth * 0.5
    high = total_iterations * 2 * call(4000, 500) + synth * 1.5
    return (round(low, 4), round(high, 4))


@dataclass(frozen=True)
class PlanBudget:
    """A plan's funding and estimate under a run's settings, branch by branch in plan order.

    `allocated` is each branch's share by priority (what `allocate_budget` records on it),
    `iterations` what the run's ceiling leaves it (what the review gate and the plan editor show),
    `note` the one line naming the branches the ceiling cannot fund in full (None when all are),
    and `cost_usd` the (low, high) cost range, when the models' prices were given.
    """

    ids: list[str]
    funding: Funding
    note: str | None
    cost_usd: tuple[float, float] | None = None

    @property
    def allocated(self) -> dict[str, int]:
        """Each branch's share by priority, clamped to the per-branch bounds."""
        return dict(zip(self.ids, self.funding.wanted, strict=True))

    @property
    def iterations(self) -> dict[str, int]:
        """The iterations each branch can expect within the run's ceiling."""
        return dict(zip(self.ids, self.funding.shares, strict=True))

    @property
    def unfunded(self) -> list[str]:
        """The branches the ceiling leaves without iterations."""
        return [self.ids[i] for i in self.funding.unfunded]


def plan_budget(
    config: RunConfig,
    priorities: Mapping[str, float],
    prices: tuple[tuple[float, float], tuple[float, float]] | None = None,
) -> PlanBudget:
    """The funding and estimate of a plan whose branches (id -> priority, in plan order) run under `config`.

    `prices` are the working and synthesis models' per-1M-token prices (input, output); with them the
    cost range of the funded iterations is estimated too.

    >>> plan_budget(RunConfig(max_iterations=8), {"a": 1.0, "b": 0.9, "c": 0.5, "d": 0.2}).iterations
    {'a': 2, 'b': 2, 'c': 0, 'd': 0}
    """
    ids = list(priorities)
    funding = fund_branches(
        config.max_iterations,
        [priorities[i] for i in ids],
        config.sub_question_min_iterations,
        config.sub_question_max_iterations,
    )
    cost = None
    if prices is not None:
        cost = estimate_cost_range(sum(funding.shares), funding.funded, prices[0], prices[1])
    return PlanBudget(ids, funding, funding_note(funding, ids, config.max_iterations), cost)
