"""research_step: one iteration of one branch, as named steps each in the module of its concept.

Plan the queries (`research.queries`), search and keep the relevant results
(`research.searching`), read the passages not shown before (`research.reading`), extract findings
(`research.extraction`), update the branch's backend choice (`research.backend_choice`), decide
whether the branch stops (`research.stopping`), and when it does, check its depth for a
drill-down (`research.depth`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig
from research_core.planning.question_shape import question_parts
from research_core.research.allotment import iterations_after
from research_core.research.backend_choice import backends_to_drop, iteration_outcome, update_stats
from research_core.research.deeper_reading import deeper_passages, reads_deeper
from research_core.research.depth import can_drill_down, evaluate_depth
from research_core.research.extraction import extract_findings
from research_core.research.own_documentation import question_products
from research_core.research.part_coverage import finding_texts, uncovered_parts, unquoted_names
from research_core.research.queries import evidence_topic, step_queries
from research_core.research.reading import Shown, passages_to_show, prompt_budget
from research_core.research.searching import keep_relevant, run_searches
from research_core.research.side_coverage import missing_for, missing_sides, missing_subjects
from research_core.research.stopping import StopDecision, branch_stop_decision
from research_core.schemas import LogEntry, Source, SubQuestion
from research_core.services import Services
from research_core.sources.reader import ReadStats
from research_core.state import as_branch

__all__ = ["evidence_topic", "research_step"]


def step_log(branch_id: str, message: str, kind: str = "decision", reasoning: str = "") -> dict:
    """A log entry of `research_step`."""
    return LogEntry(
        node="research_step", branch=branch_id, kind=kind, message=message, reasoning=reasoning
    ).model_dump()


def extract_or_say_why(
    services: Services,
    branch: SubQuestion,
    shown: Shown,
    known: list[dict],
    iteration: int,
    topic: str,
    found: int,
    question: str = "",
) -> tuple[list[dict], list[Source], dict]:
    """The step's new findings and the sources they cite, or why there are none (nothing left to read)."""
    if shown.sources:
        _, chars = prompt_budget(services)
        return extract_findings(services, branch, shown.sources, known, iteration, topic, chars, question)
    message = "Every result was off-topic or already read." if found else "No search results this iteration."
    return [], [], {"costs": [], "log": [step_log(branch.id, message)]}


def choose_backends(
    services: Services, branch: SubQuestion, searched: dict[str, dict[str, int]], cited: list[Source], log: list[dict]
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """The branch's per-backend outcomes with this step's added, and the backends it stops using
    (each drop logged): those that failed repeatedly and never helped (`backends_to_drop`)."""
    config = services.config
    stats = update_stats(branch.backend_stats, searched, {s.backend for s in cited})
    active = [b.name for b in services.usable_backends() if b.name not in branch.dropped_backends]
    dropped = list(branch.dropped_backends)
    for name, why in backends_to_drop(stats, active, config.sticky_backends, config.backend_max_failures):
        dropped.append(name)
        log.append(step_log(branch.id, f"Dropped backend '{name}' for this branch.", "source_choice", why))
    return stats, dropped


def stop_decision(
    config: RunConfig,
    branch: SubQuestion,
    iteration: int,
    findings: list[dict],
    topic: str,
    searched_any: bool,
    sources: list[dict] | None = None,
) -> tuple[StopDecision, list[str]]:
    """Whether the branch stops after this step (`branch_stop_decision` over all of its findings and the
    parts of its question no finding covers yet, each compared option and each product a clause names
    without a finding from a source about it among them, `side_coverage`), and those parts."""
    texts = finding_texts(findings)
    uncovered = [
        *uncovered_parts(topic, texts),
        *missing_sides(topic, findings, sources or []),
        *missing_subjects(topic, findings, sources or []),
    ]
    decision = branch_stop_decision(
        iteration,
        branch.allocated_iterations,
        config.sub_question_min_iterations,
        [f["confidence"] for f in findings],
        config.findings_for_stop,
        config.confidence_for_stop,
        trust_confidence=config.stop_on_confidence is not False,
        distinct_sources=len({sid for f in findings for sid in f.get("source_ids", [])}),
        uncovered=[*uncovered, *unquoted_names(topic, texts)],
        wanted_findings=(config.findings_per_part or 0) * len(question_parts(topic))
        if branch.kind == "question"
        else 0,
    )
    if not searched_any and not decision.stop:
        decision = StopDecision(True, f"nothing new to search after {iteration} iterations")
    return decision, uncovered


def step_fields(
    branch: SubQuestion,
    iteration: int,
    queries: list[str],
    shown: Shown,
    decision: StopDecision,
    stats: dict[str, dict[str, int]],
    dropped: list[str],
    found: int,
    new_findings: int,
) -> dict[str, Any]:
    """The branch's fields after the step: its count, queries and passages so far, whether its research
    is done (and why), its backend choice, how the step went, and its page counts."""
    return {
        "status": "researching",
        "iteration_count": iteration,
        "queries": [*branch.queries, *queries],
        "shown_passages": [*branch.shown_passages, *shown.keys],
        "research_done": decision.stop,
        "backend_stats": stats,
        "dropped_backends": dropped,
        "last_outcome": iteration_outcome(found, new_findings),
        "stop_reason": decision.reason if decision.stop else None,
        **shown.stats.branch_update(branch),
    }


@dataclass
class Gathered:
    """What a step gathered before extraction: its queries (none when it read deeper), the passages
    to show, how many results its searches returned, per-backend counts, costs, log and warnings."""

    queries: list[str]
    shown: Shown
    found: int
    searched: dict[str, dict[str, int]]
    costs: list[dict]
    log: list[dict]
    warnings: list[str] = field(default_factory=list)


def read_deeper(
    services: Services, branch: SubQuestion, known: list[dict], known_sources: list[dict], topic: str
) -> Gathered | None:
    """The step's passages when it reads deeper into the pages the branch's findings cite
    (`deeper_reading`), or None when they have nothing more to show."""
    limit, chars = prompt_budget(services)
    sources, keys = deeper_passages(branch, known, known_sources, services.usable_backends(), topic, chars, limit)
    if not sources:
        return None
    names = "; ".join(s.title or s.url for s in sources)
    message = f"Reading further into {len(sources)} page(s) the findings cite, before searching again: {names}"
    log = [step_log(branch.id, message, "evidence")]
    return Gathered([], Shown(sources, keys, ReadStats()), len(sources), {}, [], log)


def search_and_read(
    services: Services, payload: dict[str, Any], branch: SubQuestion, topic: str, iteration: int, missing: list[str]
) -> Gathered:
    """Plan the step's queries (aimed at what is `missing`), search, keep the relevant results and read
    the passages not shown before."""
    config = services.config
    known: list[dict] = payload.get("findings", [])
    queries, update = step_queries(services, payload["question"], branch, known, topic, iteration, missing)
    costs, log = list(update["costs"]), list(update["log"])
    if not queries:
        log.append(step_log(branch.id, "Nothing new to search: every query was searched already."))
    searched: dict[str, dict[str, int]] = {}
    found, search_log, warnings = run_searches(
        services,
        queries,
        config.max_results_per_query,
        branch.id,
        exclude=branch.dropped_backends,
        counts=searched,
        products=question_products(topic, payload["question"]),
    )
    source_limit, chars = prompt_budget(services)
    sources, relevance_log = keep_relevant(topic, found, source_limit, branch.id, services.usable_backends())
    shown = passages_to_show(services, branch, topic, sources, chars)
    return Gathered(queries, shown, len(found), searched, costs, [*log, *search_log, *relevance_log], warnings)


def gather(services: Services, payload: dict[str, Any], branch: SubQuestion, topic: str, iteration: int) -> Gathered:
    """The step's passages: read deeper into the cited pages when `deeper_reading` says so and they
    have more to show, else search."""
    known: list[dict] = payload.get("findings", [])
    known_sources: list[dict] = payload.get("sources", [])
    missing = missing_for(topic, known, known_sources)
    if reads_deeper(services.config, branch, iteration, known, missing):
        deeper = read_deeper(services, branch, known, known_sources, topic)
        if deeper is not None:
            return deeper
    return search_and_read(services, payload, branch, topic, iteration, missing)


def research_step(payload: dict[str, Any], runtime: Runtime[Services]) -> dict:
    """Run one research iteration of the branch in `payload` and decide whether it is done."""
    services, config = runtime.context, runtime.context.config
    branch = as_branch(payload["branch"])
    known: list[dict] = payload.get("findings", [])
    iteration = branch.iteration_count + 1
    services.emit({"type": "branch_iteration_started", "branch": branch.id, "iteration": iteration})
    topic = evidence_topic(branch, payload["question"])
    got = gather(services, payload, branch, topic, iteration)
    new_findings, cited, extra = extract_or_say_why(
        services, branch, got.shown, known, iteration, topic, got.found, payload["question"]
    )
    costs, log = got.costs + extra["costs"], [*got.log, *got.shown.log, *extra["log"]]
    stats, dropped = choose_backends(services, branch, got.searched, cited, log)
    all_sources = [*payload.get("sources", []), *(s.model_dump() for s in cited)]
    searched_any = bool(got.queries) or bool(got.shown.sources)
    decision, uncovered = stop_decision(
        config, branch, iteration, known + new_findings, topic, searched_any, all_sources
    )
    log.append(step_log(branch.id, decision.reason, "evaluate"))
    branch_update: dict[str, Any] = {}
    branch_count = int(payload.get("branch_count", 0))
    if decision.stop and can_drill_down(
        branch, config, branch_count, iterations_after(payload.get("iterations_left"), 1)
    ):
        room = config.max_total_sub_questions - branch_count
        branch_update, extra = evaluate_depth(services, config, branch, known + new_findings, room, uncovered)
        costs, log = costs + extra["costs"], log + extra["log"]
    services.emit(
        {"type": "branch_iteration_done", "branch": branch.id, "iteration": iteration, "findings": len(new_findings)}
    )
    fields = step_fields(
        branch, iteration, got.queries, got.shown, decision, stats, dropped, got.found, len(new_findings)
    )
    return {
        "branches": {branch.id: {**fields, **branch_update}},
        "findings": new_findings,
        "sources": [s.model_dump() for s in cited],
        "costs": costs,
        "log": log,
        "warnings": got.warnings,
    }
