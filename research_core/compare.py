"""Hierarchical versus flat on the same question, and any two finished runs side by side.

The pairwise judgement asks the LLM twice with the reports swapped, so a preference for
whichever report comes first cancels out; a criterion only has a winner when both orders agree.
"""

from __future__ import annotations

import threading
from typing import Any, Literal

from pydantic import BaseModel, Field

from research_core.configuration import RunConfig
from research_core.llm import LLMClient, LLMError
from research_core.prompts import render_prompt
from research_core.runner import RunError, Runner
from research_core.schemas import RunResult

Pick = Literal["A", "B", "tie"]
CRITERIA = ("more_complete", "better_organised", "better_supported")
MAX_REPORT_CHARS = 6000


class PairwiseOutput(BaseModel):
    """One judgement of report A against report B."""

    more_complete: Pick = "tie"
    better_organised: Pick = "tie"
    better_supported: Pick = "tie"
    reasoning: str = ""


class RunMetrics(BaseModel):
    """What the Compare view puts side by side for one run."""

    run_id: str
    mode: str
    status: str
    duration_s: float
    iterations: int
    llm_calls: int
    tokens: int
    cost_usd: float
    findings: int
    distinct_sources: int
    citations_checked: int
    citations_supported: int
    coverage_covered: int | None
    coverage_gaps: int | None


class Comparison(BaseModel):
    """Two runs, their metrics and reports, and the order-balanced judgement."""

    question: str
    runs: list[RunMetrics]
    reports: list[str]
    judgement: dict[str, str] = Field(description="criterion -> run id, 'tie' or 'inconsistent'")
    reasoning: list[str]
    judge_errors: list[str] = Field(default_factory=list)


def metrics(result: RunResult) -> RunMetrics:
    """The comparable figures of one finished run."""
    cov = result.coverage or {}
    return RunMetrics(
        run_id=result.run_id,
        mode=result.mode,
        status=result.status,
        duration_s=result.duration_s,
        iterations=result.synthesis.total_iterations,
        llm_calls=result.costs.llm_calls,
        tokens=result.costs.tokens_in + result.costs.tokens_out,
        cost_usd=result.costs.total_usd,
        findings=result.synthesis.total_findings,
        distinct_sources=len({s.url for s in result.sources}),
        citations_checked=result.synthesis.citations_checked,
        citations_supported=result.synthesis.citations_supported,
        coverage_covered=len(cov.get("covered", [])) if result.coverage else None,
        coverage_gaps=len(cov.get("gaps", [])) if result.coverage else None,
    )


def judge_pair(llm: LLMClient, question: str, first: RunResult, second: RunResult) -> tuple[dict, list[str], list]:
    """Judge both orders; a criterion goes to a run only when both orders agree."""
    verdicts: list[PairwiseOutput] = []
    reasons: list[str] = []
    errors: list[str] = []
    for a, b in ((first, second), (second, first)):
        system, user = render_prompt(
            "compare_answers",
            question=question,
            report_a=a.final_answer[:MAX_REPORT_CHARS],
            report_b=b.final_answer[:MAX_REPORT_CHARS],
        )
        try:
            out, _costs = llm.structured(
                "compare_answers", PairwiseOutput, system, user, node="compare", tier="synthesis"
            )
        except LLMError as exc:
            errors.append(exc.user_message)
            continue
        verdicts.append(out)
        reasons.append(out.reasoning)
    judgement: dict[str, str] = {}
    for criterion in CRITERIA:
        if len(verdicts) < 2:
            judgement[criterion] = "not judged"
            continue
        # map "A"/"B" back to run ids; the second verdict saw the reports swapped
        forward = {"A": first.run_id, "B": second.run_id, "tie": "tie"}[getattr(verdicts[0], criterion)]
        backward = {"A": second.run_id, "B": first.run_id, "tie": "tie"}[getattr(verdicts[1], criterion)]
        judgement[criterion] = forward if forward == backward else "inconsistent"
    return judgement, reasons, errors


def compare_results(llm: LLMClient, first: RunResult, second: RunResult) -> Comparison:
    """Compare two finished runs."""
    judgement, reasons, errors = judge_pair(llm, first.question, first, second)
    return Comparison(
        question=first.question,
        runs=[metrics(first), metrics(second)],
        reports=[first.final_answer, second.final_answer],
        judgement=judgement,
        reasoning=reasons,
        judge_errors=errors,
    )


def compare_modes(runner: Runner, question: str, config: RunConfig, *, in_parallel: bool = True) -> Comparison:
    """Run the question flat and hierarchical with the same budget, then compare the two."""
    snaps: dict[str, Any] = {}
    errors: dict[str, BaseException] = {}

    def run(mode: str) -> None:
        try:
            cfg = config.model_copy(update={"mode": mode, "auto_approve": True, "step_mode": False})
            snaps[mode] = runner.start(question, cfg)
        except BaseException as exc:  # reported below, after both threads end
            errors[mode] = exc

    if in_parallel:
        threads = [threading.Thread(target=run, args=(m,)) for m in ("flat", "hierarchical")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    else:
        run("flat")
        run("hierarchical")
    if errors:
        mode, exc = next(iter(errors.items()))
        raise RunError(f"The {mode} run could not run: {exc}")
    results = {}
    for mode, snap in snaps.items():
        result = runner.result(snap.run_id)
        if result is None:
            raise RunError(f"The {mode} run ended as {snap.status}: {snap.error or 'no result'}")
        results[mode] = result
    return compare_results(runner.llm, results["flat"], results["hierarchical"])


def compare_runs(runner: Runner, first_id: str, second_id: str) -> Comparison:
    """Compare two past runs by id."""
    first, second = runner.result(first_id), runner.result(second_id)
    if first is None or second is None:
        missing = first_id if first is None else second_id
        raise RunError(f"Run {missing} has not finished; only finished runs can be compared.")
    return compare_results(runner.llm, first, second)
