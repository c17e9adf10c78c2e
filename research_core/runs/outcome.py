"""How one drive of a run ended, as the run's record keeps it.

A drive ends failed (with a user-facing error), paused at a gate, interrupted (a step is still
due), cancelled at the plan review, or finished with its result. An unfinished run records what it
has spent and gathered so far; a finished one its result and final totals.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.types import StateSnapshot

from research_core.errors import ArborError
from research_core.llm.client import LLMError
from research_core.planning.plan import PlanError
from research_core.runs.errors import RunError
from research_core.runs.progress import progress_totals, result_totals
from research_core.runs.result import build_result
from research_core.runs.store import RunStore
from research_core.schemas import utc_now
from research_core.search.registry import UnknownBackendError
from research_core.text.sanitize import strip_url_secrets_in_text

logger = logging.getLogger(__name__)


def failure_message(run_id: str, exc: Exception) -> str:
    """The error a failed drive records: a user message when the error has one, else its type and text.

    Errors that say what to do are recorded without a traceback (engine errors other than the
    LLM's, the run's own and an unknown backend's are logged as one warning line); anything else
    is a bug, logged with its traceback.
    """
    if isinstance(exc, LLMError | RunError | UnknownBackendError):
        return exc.user_message
    if isinstance(exc, PlanError):
        return f"The plan is invalid: {exc}"
    if isinstance(exc, ArborError) and exc.user_message:
        logger.warning("run %s failed: %s", run_id, exc.user_message)
        return exc.user_message
    logger.exception("run %s failed", run_id)
    return f"{type(exc).__name__}: {exc}"


def decided_modes(update: Any) -> list[str]:
    """The modes (flat, hierarchical, hypothesis) that the node updates of one streamed step decide."""
    if not isinstance(update, dict):
        return []
    modes = [node_update.get("mode") for node_update in update.values() if isinstance(node_update, dict)]
    return [mode for mode in modes if isinstance(mode, str) and mode]


def paused_status(state: StateSnapshot) -> str:
    """The status of a run paused at a gate: awaiting its plan review, or any other (step) gate."""
    kind = (state.interrupts[0].value or {}).get("kind")
    return "awaiting_review" if kind == "review" else "awaiting_step"


def record_outcome(
    store: RunStore,
    run_id: str,
    state: StateSnapshot,
    values: dict[str, Any],
    *,
    error: str | None,
    mode: str,
    active_s: float,
    created_at: str | None,
) -> None:
    """Record how a drive that was not stopped by the user ended.

    `values` are the run's live values, `mode` the mode it runs in, `active_s` its research time
    over all drives, `created_at` when it was created (the result's start).
    """
    so_far = progress_totals(values, active_s).to_record()  # what an unfinished run has spent and gathered
    if error is not None:
        error = strip_url_secrets_in_text(error)
        store.update(run_id, status="failed", error=error, mode=mode, totals_json=so_far)
    elif state.interrupts:
        store.update(run_id, status=paused_status(state), mode=mode, totals_json=so_far)
    elif state.next:
        store.update(run_id, status="interrupted", totals_json=so_far)
    elif (values.get("status") or "completed") == "cancelled":
        store.update(run_id, status="cancelled", mode=values.get("mode") or "", totals_json=so_far)
    else:
        # Research time: the sum of the drives, without the time spent waiting at gates or down.
        result = build_result(
            run_id, values, started_at=created_at or utc_now(), finished_at=utc_now(), duration_s=active_s
        )
        store.update(
            run_id,
            status=result.status,
            mode=result.mode,
            totals_json=result_totals(result).to_record(),
            result_json=result.model_dump_json(),
        )
