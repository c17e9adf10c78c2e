"""Token usage to dollars, and totals per node, branch and model."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from research_core.schemas import CostEntry, CostTotals


def _listed_price(model: str, pricing: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The table's price of `model`, or None when the table does not list it."""
    if model in pricing:
        return pricing[model]
    # Dated variants (gpt-4o-mini-2024-07-18) fall back to their base name.
    for name in sorted(pricing, key=len, reverse=True):
        if model.startswith(name):
            return pricing[name]
    return None


def price_for(model: str, pricing: Mapping[str, tuple[float, float]], *, local: bool) -> tuple[float, float]:
    """USD per 1M tokens (input, output) for `model`; local models and unknown models cost 0."""
    if local:
        return (0.0, 0.0)
    return _listed_price(model, pricing) or (0.0, 0.0)


def price_known(model: str, pricing: Mapping[str, tuple[float, float]], *, local: bool) -> bool:
    """True when `price_for` knows what `model` costs (local models are free, so known)."""
    return local or _listed_price(model, pricing) is not None


def call_cost(tokens_in: int, tokens_out: int, price: tuple[float, float]) -> float:
    """The dollar cost of one call."""
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000


def total_cost(entries: Iterable[Mapping | CostEntry]) -> float:
    """Sum of the cost of the entries."""
    return sum((e.cost_usd if isinstance(e, CostEntry) else float(e.get("cost_usd", 0.0))) for e in entries)


def summarize_costs(entries: Iterable[Mapping | CostEntry]) -> CostTotals:
    """Totals and breakdowns by node, branch and model."""
    items = [e if isinstance(e, CostEntry) else CostEntry.model_validate(e) for e in entries]
    by_node: dict[str, float] = defaultdict(float)
    by_branch: dict[str, float] = defaultdict(float)
    by_model: dict[str, float] = defaultdict(float)
    for e in items:
        by_node[e.node] += e.cost_usd
        by_branch[e.branch or "(run)"] += e.cost_usd
        by_model[e.model] += e.cost_usd
    return CostTotals(
        total_usd=round(sum(e.cost_usd for e in items), 6),
        tokens_in=sum(e.tokens_in for e in items),
        tokens_out=sum(e.tokens_out for e in items),
        llm_calls=len(items),
        by_node=dict(by_node),
        by_branch=dict(by_branch),
        by_model=dict(by_model),
        entries=items,
    )
