"""The one loop every gate runs: show the payload, read the answer, and ask again while it is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from langgraph.types import interrupt

from research_core.planning.plan import PlanError

T = TypeVar("T")


def ask_until_valid(payload_fn: Callable[[str | None], dict[str, Any]], read: Callable[[Any], T]) -> T:
    """`interrupt` with `payload_fn(error)` until `read` accepts the answer; the gate shows the last refusal.

    `read` turns what arrives into the gate's typed answer (`answer_from_resume`) and raises a
    `PlanError` (a `GateAnswerError`, an `ArborError`) whose one-line `user_message` is the refusal.
    """
    error = None
    while True:
        answer = interrupt(payload_fn(error))
        try:
            return read(answer)
        except PlanError as exc:
            error = exc.user_message
