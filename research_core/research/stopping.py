"""When a branch stops researching: the seeds' criteria, as a pure function."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# a branch keeps searching for a part or side no finding covers for at most this many iterations: a
# flat run whose library has no page on one clause otherwise spends its whole budget looking for it
MAX_ITERATIONS_FOR_MISSING = 6


@dataclass(frozen=True)
class StopDecision:
    """Whether a branch stops, and why (reasons a user can read)."""

    stop: bool
    reason: str


def branch_stop_decision(
    iterations_done: int,
    allocated: int,
    min_iterations: int,
    confidences: Sequence[float],
    findings_for_stop: int = 3,
    confidence_for_stop: float = 0.7,
    distinct_sources: int | None = None,
    min_sources: int = 2,
    uncovered: Sequence[str] = (),
    wanted_findings: int = 0,
    trust_confidence: bool = True,
) -> StopDecision:
    """Decide whether a branch is done.

    Stop when the minimum iterations are met and either (a) there are at least `findings_for_stop`
    findings or (b) the average confidence is at least `confidence_for_stop` with 2+ findings;
    or (c) when the branch's budget is spent. The minimum holds for (b) too: the confidence is
    the model's own word, and a small model states 0.7-0.9 for whatever it found first (two
    findings on WAL's callback and checkpoints ended "What is write-ahead logging?" after one
    search, before any sentence said what WAL is). When `distinct_sources` is given, (a) and (b) also need
    `min_sources` distinct sources: evidence resting on one page is thin, so the branch keeps
    searching while its budget allows. Likewise while parts of the branch's question are
    `uncovered` by any finding, for at most `MAX_ITERATIONS_FOR_MISSING` iterations, and while it has
    fewer than `wanted_findings` (`findings_per_part` for each part of its question), for as many.
    Without `trust_confidence` (b) is never a reason to stop: the embedded model is 0.85 sure of any
    two findings, and three branches of "How do PostgreSQL and SQLite write an upsert with ON
    CONFLICT, and how does Python's sqlite3 module report how many rows a statement changed?" ended
    on two each, none naming `Cursor.rowcount`.
    """
    n = len(confidences)
    avg = sum(confidences) / n if n else 0.0
    if distinct_sources is not None and distinct_sources < min_sources and iterations_done < allocated:
        return StopDecision(
            False, f"continue: {n} findings from {distinct_sources} source(s), {iterations_done}/{allocated} iterations"
        )
    if uncovered and iterations_done < min(allocated, MAX_ITERATIONS_FOR_MISSING):
        missing = "; ".join(p[:60] for p in uncovered[:3])
        return StopDecision(False, f"continue: no finding yet on {missing} ({iterations_done}/{allocated} iterations)")
    if n < wanted_findings and iterations_done < min(allocated, MAX_ITERATIONS_FOR_MISSING):
        wanted = f"{n} of {wanted_findings} findings wanted"
        return StopDecision(False, f"continue: {wanted} ({iterations_done}/{allocated} iterations)")
    if iterations_done >= min_iterations and n >= findings_for_stop:
        return StopDecision(True, f"enough findings ({n}) after {iterations_done} iterations")
    if trust_confidence and iterations_done >= min_iterations and n >= 2 and avg >= confidence_for_stop:
        return StopDecision(True, f"high confidence ({avg:.2f} average over {n} findings)")
    if iterations_done >= allocated:
        return StopDecision(True, f"iteration budget spent ({iterations_done}/{allocated})")
    return StopDecision(False, f"continue: {n} findings, {iterations_done}/{allocated} iterations")
