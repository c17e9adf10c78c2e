"""Helpers for the unit tests of `research_core/coordination/`: a pass, fake services, branches."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from research_core.configuration import RunConfig
from research_core.coordination.pass_state import CoordinationPass
from research_core.llm.model_settings import with_model_settings
from research_core.schemas import SubQuestion


def branch(id: str, **fields: Any) -> SubQuestion:
    """A branch record with the fields a test names (a question of its own and priority 0.5 otherwise)."""
    return SubQuestion(**{"id": id, "question_text": f"Question {id}?", "priority": 0.5, **fields})


def records(branches: dict[str, Any]) -> dict[str, SubQuestion]:
    """Branches written as the fields each test names, as the records a run holds."""
    return {bid: b if isinstance(b, SubQuestion) else branch(**{"id": bid, **b}) for bid, b in branches.items()}


def make_pass(branches: dict[str, Any], *, stop: bool = False, **config: Any) -> CoordinationPass:
    """A pass over `branches` (in their order, as records) with a RunConfig built from `config` (a hosted
    model's settings for those it leaves to the model)."""
    return CoordinationPass(
        config=with_model_settings(RunConfig(**config), embedded=False),
        branches=records(branches),
        order=list(branches),
        stop=stop,
        acknowledged=[],
    )


def priced_services(
    work: tuple[float, float] = (1.0, 1.0), synthesis: tuple[float, float] = (1.0, 1.0), **config: Any
) -> Any:
    """Stand-in services of a run configured by `config`, whose LLM charges `work` and `synthesis`
    USD per 1M tokens (in, out)."""
    prices = {"work": work, "synthesis": synthesis}
    return SimpleNamespace(
        llm=SimpleNamespace(price=lambda tier: prices[tier], is_local=False),
        config=with_model_settings(RunConfig(**config), embedded=False),
    )


def hypothesis(bid: str, **fields: Any) -> dict:
    """A completed hypothesis branch whose verdict suggests a pivot."""
    return {
        "id": bid,
        "kind": "hypothesis",
        "status": "completed",
        "hypothesis": {"pivot": "A better hypothesis.", **fields},
    }
