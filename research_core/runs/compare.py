"""Hierarchical versus flat on the same question, and any two finished runs side by side.

The pairwise judgement asks the LLM twice with the reports swapped, so a preference for
whichever report comes first cancels out; a criterion only has a winner when both orders agree.
The judge's own LLM calls are recorded with the comparison (`judge_costs`).

`CompareJobs` runs comparisons on background threads of the server process (both runs of a
question, then the judgement; or the judgement of two past runs), keyed by the pair of run ids,
so a page rerun or a second tab finds a comparison in progress instead of starting it twice.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from research_core.configuration import RunConfig
from research_core.errors import ArborError
from research_core.llm.client import LLMClient, LLMError
from research_core.llm.costs import summarize_costs
from research_core.llm.prompts import render_prompt
from research_core.runs.errors import RunError
from research_core.runs.records import RunResult
from research_core.runs.runner import Runner
from research_core.schemas import CostEntry, CostTotals

logger = logging.getLogger(__name__)

Pick = Literal["A", "B", "tie"]
CRITERIA = ("more_complete", "better_organised", "better_supported")
MAX_REPORT_CHARS = 6000
MODES = ("flat", "hierarchical")
MAX_JOBS = 64  # finished comparisons kept in memory; the oldest finished ones go first


class PairwiseOutput(BaseModel):
    """One judgement of report A against report B."""

    more_complete: Pick = "tie"
    better_organised: Pick = "tie"
    better_supported: Pick = "tie"
    reasoning: str = ""


class JudgeVerdict(PairwiseOutput):
    """One order of the judgement, with the runs that were shown as A and B."""

    report_a: str
    report_b: str


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
    statements_checked: int = 0
    statements_supported: int = 0
    coverage_covered: int | None
    coverage_gaps: int | None


class Judgement(BaseModel):
    """The order-balanced judgement of two reports and what the judge's calls cost."""

    judgement: dict[str, str] = Field(description="criterion -> run id, 'tie', 'inconsistent' or 'not judged'")
    verdicts: list[JudgeVerdict] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    costs: CostTotals


class Comparison(BaseModel):
    """Two runs, their metrics and reports, and the order-balanced judgement."""

    question: str
    runs: list[RunMetrics]
    reports: list[str]
    judgement: dict[str, str] = Field(description="criterion -> run id, 'tie' or 'inconsistent'")
    reasoning: list[str]
    judge_errors: list[str] = Field(default_factory=list)
    verdicts: list[JudgeVerdict] = Field(default_factory=list, description="each order's picks and reasons")
    judge_costs: CostTotals | None = Field(default=None, description="the judge's own LLM calls")


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
        statements_checked=result.synthesis.statements_checked,
        statements_supported=result.synthesis.statements_supported,
        coverage_covered=len(cov.get("covered", [])) if result.coverage else None,
        coverage_gaps=len(cov.get("gaps", [])) if result.coverage else None,
    )


def judge(llm: LLMClient, question: str, first: RunResult, second: RunResult) -> Judgement:
    """Judge both orders; a criterion goes to a run only when both orders agree.

    Every call of the judge, failed attempts included, is kept in `costs`.
    """
    verdicts: list[JudgeVerdict] = []
    errors: list[str] = []
    entries: list[CostEntry] = []
    for a, b in ((first, second), (second, first)):
        system, user = render_prompt(
            "compare_answers",
            question=question,
            report_a=a.final_answer[:MAX_REPORT_CHARS],
            report_b=b.final_answer[:MAX_REPORT_CHARS],
        )
        try:
            out, costs = llm.structured(
                "compare_answers", PairwiseOutput, system, user, node="compare", tier="synthesis"
            )
        except LLMError as exc:
            entries.extend(exc.costs)
            errors.append(exc.user_message)
            continue
        entries.extend(costs)
        verdicts.append(JudgeVerdict(**out.model_dump(), report_a=a.run_id, report_b=b.run_id))
    judgement: dict[str, str] = {}
    for criterion in CRITERIA:
        if len(verdicts) < 2:
            judgement[criterion] = "not judged"
            continue
        picks = []
        for verdict in verdicts:
            names = {"A": verdict.report_a, "B": verdict.report_b, "tie": "tie"}
            picks.append(names[getattr(verdict, criterion)])
        judgement[criterion] = picks[0] if picks[0] == picks[1] else "inconsistent"
    return Judgement(judgement=judgement, verdicts=verdicts, errors=errors, costs=summarize_costs(entries))


def compare_results(llm: LLMClient, first: RunResult, second: RunResult) -> Comparison:
    """Compare two finished runs."""
    out = judge(llm, first.question, first, second)
    return Comparison(
        question=first.question,
        runs=[metrics(first), metrics(second)],
        reports=[first.final_answer, second.final_answer],
        judgement=out.judgement,
        reasoning=[v.reasoning for v in out.verdicts],
        judge_errors=out.errors,
        verdicts=out.verdicts,
        judge_costs=out.costs,
    )


def mode_config(config: RunConfig, mode: str) -> RunConfig:
    """The config of one side of a flat-versus-hierarchical comparison: same budget, no gates."""
    return config.model_copy(update={"mode": mode, "auto_approve": True, "step_mode": False})


def compare_modes(runner: Runner, question: str, config: RunConfig, *, in_parallel: bool = True) -> Comparison:
    """Run the question flat and hierarchical with the same budget, then compare the two."""
    snaps: dict[str, Any] = {}
    errors: dict[str, BaseException] = {}

    def run(mode: str) -> None:
        try:
            snaps[mode] = runner.start(question, mode_config(config, mode))
        except BaseException as exc:  # reported below, after both threads end
            errors[mode] = exc

    if in_parallel:
        threads = [threading.Thread(target=run, args=(m,)) for m in MODES]
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


# ---- comparisons in the background (UI) ------------------------------------------------------

Stage = Literal["researching", "judging", "done", "failed"]


@dataclass
class CompareJob:
    """One comparison this process runs or ran: two runs (left, right) and, at the end, the judgement."""

    run_ids: tuple[str, str]
    stage: Stage
    in_parallel: bool = True
    comparison: Comparison | None = None
    error: str | None = None
    failed_while: Stage | None = None
    started_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        """True while the job's thread works (researching or judging)."""
        return self.thread is not None and self.thread.is_alive()


def pair_key(left: str, right: str) -> frozenset[str]:
    """The key of a comparison: the two run ids, whichever side each is on."""
    return frozenset((left, right))


class CompareJobs:
    """The comparisons of one server process, keyed by their pair of run ids."""

    def __init__(self, max_jobs: int = MAX_JOBS):
        self.max_jobs = max_jobs
        self._jobs: dict[frozenset[str], CompareJob] = {}
        self._lock = threading.Lock()

    def get(self, left: str, right: str) -> CompareJob | None:
        """The comparison of these two runs, if this process started one."""
        with self._lock:
            return self._jobs.get(pair_key(left, right))

    def active_run_ids(self) -> set[str]:
        """Every run that belongs to a comparison still in progress."""
        with self._lock:
            return {rid for job in self._jobs.values() if job.active for rid in job.run_ids}

    def _register(self, job: CompareJob, target: Any) -> CompareJob:
        key = pair_key(*job.run_ids)
        with self._lock:
            existing = self._jobs.get(key)
            if existing is not None and existing.active:
                raise RunError("These two runs are already being compared.")
            job.thread = threading.Thread(target=target, args=(job,), name=f"arbor-compare-{'-'.join(job.run_ids)}")
            job.thread.daemon = True
            self._jobs.pop(key, None)  # a new judgement of a pair counts as the newest
            self._jobs[key] = job
            excess = len(self._jobs) - self.max_jobs
            if excess > 0:  # forget the oldest finished comparisons (dicts keep insertion order)
                finished = [k for k, j in self._jobs.items() if not j.active and k != key]
                for k in finished[:excess]:
                    del self._jobs[k]
        job.thread.start()
        return job

    def start_modes(
        self, runner: Runner, question: str, config: RunConfig, *, in_parallel: bool = True, judge: bool = True
    ) -> tuple[str, str]:
        """Create a flat and a hierarchical run of `question` with the same budget and drive both in
        the background (together, or flat first when the endpoint answers one request at a time),
        then judge them. Returns (flat run id, hierarchical run id) at once."""
        flat_id = runner.create_run(question, mode_config(config, "flat"))
        hier_id = runner.create_run(question, mode_config(config, "hierarchical"))
        job = CompareJob(run_ids=(flat_id, hier_id), stage="researching", in_parallel=in_parallel)

        def body(job: CompareJob) -> None:
            try:
                if in_parallel:
                    for run_id in job.run_ids:
                        runner.resume_background(run_id)
                    for run_id in job.run_ids:
                        runner.wait(run_id)
                else:
                    for run_id in job.run_ids:
                        runner.resume_background(run_id)
                        runner.wait(run_id)
                results = [runner.result(run_id) for run_id in job.run_ids]
                failed = []
                for mode, run_id, result in zip(MODES, job.run_ids, results, strict=True):
                    if result is None:
                        snap = runner.snapshot(run_id)
                        failed.append(f"The {mode} run ended as {snap.status}: {snap.error or 'no report'}.")
                if failed:
                    self._fail(job, " ".join(failed))
                    return
                if judge:
                    job.stage = "judging"
                    job.comparison = compare_results(runner.llm, results[0], results[1])  # type: ignore[arg-type]
                job.stage = "done"
                job.finished_at = time.time()
            except ArborError as exc:  # reported on the page, never raised into a dead thread
                logger.exception("comparison of %s failed", job.run_ids)
                self._fail(job, exc.user_message or str(exc))
            except Exception as exc:
                logger.exception("comparison of %s failed", job.run_ids)
                self._fail(job, str(exc))

        self._register(job, body)
        return flat_id, hier_id

    def judge(self, runner: Runner, left: str, right: str) -> CompareJob:
        """Judge two finished runs in the background (left is shown as A first)."""
        for run_id in (left, right):
            if runner.result(run_id) is None:
                raise RunError(f"Run {run_id} has not finished; only finished runs can be compared.")
        job = CompareJob(run_ids=(left, right), stage="judging")

        def body(job: CompareJob) -> None:
            try:
                job.comparison = compare_runs(runner, left, right)
                job.stage = "done"
                job.finished_at = time.time()
            except ArborError as exc:  # reported on the page
                logger.exception("judgement of %s failed", job.run_ids)
                self._fail(job, exc.user_message or str(exc))
            except Exception as exc:
                logger.exception("judgement of %s failed", job.run_ids)
                self._fail(job, str(exc))

        return self._register(job, body)

    def wait(self, left: str, right: str, timeout: float | None = None) -> CompareJob | None:
        """Block until the comparison of these runs ends (tests)."""
        job = self.get(left, right)
        if job is not None and job.thread is not None:
            job.thread.join(timeout)
        return job

    @staticmethod
    def _fail(job: CompareJob, message: str) -> None:
        job.error = message
        job.failed_while = job.stage
        job.stage = "failed"
        job.finished_at = time.time()
