"""research_step: one iteration of one branch: plan queries, search, extract findings, evaluate."""

from __future__ import annotations

import logging
import textwrap
from typing import Any

from langgraph.runtime import Runtime

from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import research_focus
from research_core.planning.question_shape import frame_terms, stand_alone, subjects, with_frame
from research_core.research.allotment import iterations_after
from research_core.research.backend_choice import backends_to_drop, iteration_outcome, update_stats
from research_core.research.depth import can_drill_down, evaluate_depth
from research_core.research.evidence import source_relevance
from research_core.research.extraction import extract_findings
from research_core.research.first_queries import first_queries, fresh_queries
from research_core.research.navigation import navigation_reason
from research_core.research.part_coverage import finding_texts, still_missing, uncovered_parts, unquoted_names
from research_core.research.shown_passages import further_passages, not_shown_before
from research_core.research.stopping import StopDecision, branch_stop_decision
from research_core.schemas import (
    LogEntry,
    QueryPlanOutput,
    Source,
    SubQuestion,
)
from research_core.search.base import MAX_RESULTS_PER_QUERY, SearchError, clip_source
from research_core.services import Services
from research_core.sources.reader import read_sources
from research_core.text.words import folded

logger = logging.getLogger(__name__)

KNOWN_IN_QUERY_PROMPT = 5


def prompt_budget(services: Services) -> tuple[int, int]:
    """(sources per extraction prompt, characters per snippet): the run's settings, fewer for a small model."""
    return services.config.sources_per_prompt, services.config.snippet_chars


def plan_queries(
    services: Services, question: str, branch: SubQuestion, findings: list[dict], missing: list[str] | None = None
) -> tuple[list, dict]:
    """Ask for search queries, aimed at the `missing` parts of the question once findings exist;
    fall back to the sub-question itself. Returns (queries, extra update)."""
    # the latest findings, clipped: the planner needs their gist, and a long prompt is slow to read on a CPU
    latest = findings[-KNOWN_IN_QUERY_PROMPT:]
    known = "\n".join(f"- {textwrap.shorten(f['text'], 160, placeholder=' …')}" for f in latest) or "(none yet)"
    used = "\n".join(f"- {q}" for q in branch.queries) or "(none)"
    previous = {
        "no_results": "The last queries returned no search results. Write different, broader or rephrased queries.",
        "irrelevant": "The last queries returned only irrelevant results. Rephrase them with other key terms.",
    }.get(branch.last_outcome or "", "(nothing to correct)")
    system, user = render_prompt(
        "plan_queries",
        question=question,
        sub_question=research_focus(branch),
        used_queries=used,
        known_findings=known,
        previous_attempt=previous,
        still_missing="\n".join(f"- {m}" for m in missing or []) if findings and missing else "(nothing identified)",
    )
    costs: list[dict] = []
    searched = {folded(q) for q in branch.queries}
    try:
        out, entries = services.llm.structured(
            "plan_queries", QueryPlanOutput, system, user, node="research_step", branch=branch.id, max_tokens=300
        )
        costs = [c.model_dump() for c in entries]
        queries = []
        for q in out.queries:
            q = " ".join(q.split())[:200]
            if q and folded(q) not in searched and folded(q) not in {folded(x) for x in queries}:
                queries.append(q)
        retry = branch.last_outcome in ("no_results", "irrelevant")
        if not queries:
            # the model repeated itself: search words not searched yet rather than the same words again
            queries = fresh_queries(evidence_topic(branch, question), branch.queries, missing)
        label = f"Reformulated queries after {(branch.last_outcome or '').replace('_', ' ')}" if retry else "Queries"
        log = LogEntry(
            node="research_step",
            branch=branch.id,
            kind="retry" if retry else "queries",
            message=f"{label}: {queries}",
            reasoning=out.reasoning,
        )
    except StructuredOutputError as exc:
        costs = [c.model_dump() for c in exc.costs]
        log = LogEntry(
            node="research_step",
            branch=branch.id,
            kind="fallback",
            message="Query planning failed; searching with the sub-question itself.",
            reasoning=exc.user_message,
        )
        queries = [q for q in [branch.question_text[:200]] if folded(q) not in searched]
        queries = queries or fresh_queries(evidence_topic(branch, question), branch.queries, missing)
    # empty when every query the engine could write was searched already: the branch stops searching
    return queries, {"costs": costs, "log": [log.model_dump()]}


def code_queries(branch_id: str, topic: str) -> tuple[list[str], dict]:
    """A local model's first queries, written by code (`first_queries`); same return shape as `plan_queries`."""
    queries = first_queries(topic)
    log = LogEntry(
        node="research_step",
        branch=branch_id,
        kind="queries",
        message=f"Queries: {queries}",
        reasoning="First search written from the question itself (no model call).",
    )
    return queries, {"costs": [], "log": [log.model_dump()]}


def run_searches(
    services: Services,
    queries: list[str],
    max_results: int,
    branch_id: str,
    exclude: list[str] | None = None,
    counts: dict[str, dict[str, int]] | None = None,
) -> tuple[list[Source], list[dict], list[str]]:
    """Search every usable backend (less `exclude`) for every query.

    Returns (sources best first, log entries, warnings); fills `counts[backend]` with errors and results.
    """
    found: dict[str, Source] = {}
    log: list[dict] = []
    warnings: list[str] = []
    counts = counts if counts is not None else {}
    per_query = min(max_results, MAX_RESULTS_PER_QUERY)
    backends = [b for b in services.usable_backends() if b.name not in (exclude or [])]
    if not backends:
        log.append(
            LogEntry(
                node="research_step", branch=branch_id, kind="search", message="No search backend is usable."
            ).model_dump()
        )
    for backend in backends:
        for query in queries:
            if backend.name not in {b.name for b in services.usable_backends()}:
                break
            row = counts.setdefault(backend.name, {"errors": 0, "results": 0})
            try:
                results = backend.search(query, per_query)[:per_query]
                row["results"] += len(results)
            except SearchError as exc:
                row["errors"] += 1
                entry = LogEntry(node="research_step", branch=branch_id, kind="search_error", message=exc.user_message)
                log.append(entry.model_dump())
                # Only a missing network disables a backend for the run; any other failure (a timeout,
                # an HTTP error, an answer that is not the backend's) fails this query alone, and the
                # user hears of it once: a run that found nothing must say why.
                if exc.unreachable and services.mark_down(backend.name, exc.user_message):
                    warnings.append(f"{exc.user_message} (backend '{backend.name}' disabled for this run)")
                elif not exc.unreachable and exc.user_message not in warnings:
                    warnings.append(exc.user_message)
                continue
            except Exception as exc:  # a backend bug must not lose the run
                row["errors"] += 1
                logger.exception("search backend %s failed", backend.name)
                entry = LogEntry(
                    node="research_step",
                    branch=branch_id,
                    kind="search_error",
                    message=f"{backend.name} failed: {type(exc).__name__}: {exc}",
                )
                log.append(entry.model_dump())
                continue
            for src in results:
                src = clip_source(src).model_copy(update={"sub_question_id": branch_id})
                if src.id not in found or found[src.id].relevance < src.relevance:
                    found[src.id] = src
            entry = LogEntry(
                node="research_step",
                branch=branch_id,
                kind="search",
                message=f"{backend.name}: {len(results)} results for {query!r}",
            )
            log.append(entry.model_dump())
    return sorted(found.values(), key=lambda s: -s.relevance), log, warnings


def keep_relevant(question: str, sources: list[Source], limit: int, branch_id: str) -> tuple[list[Source], list[dict]]:
    """The best `limit` sources that pass the relevance gate, and log entries naming those refused.

    Navigation pages (indexes, site maps, change logs: `research.navigation`) are never evidence.
    """
    kept: list[Source] = []
    refused: list[str] = []
    for source in sources:
        navigation = navigation_reason(source.title, source.url, source.snippet)
        if navigation:
            refused.append(f"{source.title or source.url} ({navigation})")
            continue
        verdict = source_relevance(question, source)
        if verdict.ok:
            kept.append(source)
        else:
            refused.append(f"{source.title or source.url} ({verdict.reason})")
    log = []
    if refused:
        entry = LogEntry(
            node="research_step",
            branch=branch_id,
            kind="evidence",
            message=f"Refused {len(refused)} off-topic source(s): " + "; ".join(refused[:8]),
        )
        log.append(entry.model_dump())
    return kept[:limit], log


def about_subject_first(question: str, sources: list[Source]) -> list[Source]:
    """`sources` with those whose title or address names a subject of `question` first (order kept
    otherwise): a branch about one system reads that system's own documentation before pages that
    only mention it."""
    names = [n.lower() for n in subjects(question) if len(n) > 1]
    if not names:
        return sources
    return sorted(sources, key=lambda s: not any(n in f"{s.title} {s.url}".lower() for n in names))


def evidence_topic(branch: SubQuestion, question: str) -> str:
    """What a branch's evidence must be about: its question (with the main question's subjects when it
    names none, as an edited or drilled-down question may not), or a hypothesis within the main question."""
    if branch.kind == "question":
        topic = stand_alone(branch.question_text, question)
        frame = frame_terms(topic, question)
        return f"{topic} ({frame})" if frame else topic
    return f"{branch.question_text} ({question})"


def research_step(payload: dict[str, Any], runtime: Runtime[Services]) -> dict:
    """Run one research iteration of the branch in `payload` and decide whether it is done."""
    services = runtime.context
    config = services.config
    branch = SubQuestion(**payload["branch"])
    known: list[dict] = payload.get("findings", [])
    iteration = branch.iteration_count + 1
    services.emit({"type": "branch_iteration_started", "branch": branch.id, "iteration": iteration})

    topic = evidence_topic(branch, payload["question"])
    if config.engine_first_queries and iteration == 1 and branch.kind == "question" and not branch.queries:
        queries, update = code_queries(branch.id, topic)
    else:
        queries, update = plan_queries(
            services, payload["question"], branch, known, still_missing(topic, finding_texts(known))
        )
    if branch.kind == "question":
        queries = with_frame(queries, frame_terms(branch.question_text, payload["question"]))
    costs, log = list(update["costs"]), list(update["log"])
    if not queries:
        entry = LogEntry(
            node="research_step", branch=branch.id, message="Nothing new to search: every query was searched already."
        )
        log.append(entry.model_dump())
    searched: dict[str, dict[str, int]] = {}
    found, search_log, warnings = run_searches(
        services, queries, config.max_results_per_query, branch.id, exclude=branch.dropped_backends, counts=searched
    )
    log += search_log
    source_limit, chars = prompt_budget(services)
    sources, relevance_log = keep_relevant(topic, found, source_limit, branch.id)
    log += relevance_log
    # Reading the pages: each kept web source's snippet becomes the passages of its page about the branch.
    sources, read_log, read_stats = read_sources(services, topic, sources, config, max_chars=chars)
    log += read_log
    sources, shown, skipped = not_shown_before(sources, branch.shown_passages, topic, chars)
    further, further_keys = further_passages(
        skipped, services.usable_backends(), topic, [*branch.shown_passages, *shown], chars
    )
    sources, shown = [*sources, *further], [*shown, *further_keys]
    if skipped:
        names = "; ".join(s.title or s.url for s in skipped[:5])
        log.append(
            LogEntry(
                node="research_step",
                branch=branch.id,
                kind="evidence",
                message=f"Skipped {len(skipped)} result(s) this branch has already read: {names}"
                + (f"; showing the next passage of {len(further)} of them" if further else ""),
            ).model_dump()
        )
    new_findings: list[dict] = []
    cited: list[Source] = []
    if sources:
        new_findings, cited, extra = extract_findings(services, branch, sources, known, iteration, topic, chars)
        costs += extra["costs"]
        log += extra["log"]
    else:
        message = "Every result was off-topic or already read." if found else "No search results this iteration."
        entry = LogEntry(node="research_step", branch=branch.id, message=message)
        log.append(entry.model_dump())

    outcome = iteration_outcome(len(found), len(new_findings))
    stats = update_stats(branch.backend_stats, searched, {s.backend for s in cited})
    active = [b.name for b in services.usable_backends() if b.name not in branch.dropped_backends]
    dropped = list(branch.dropped_backends)
    for name, why in backends_to_drop(stats, active, config.sticky_backends, config.backend_max_failures):
        dropped.append(name)
        log.append(
            LogEntry(
                node="research_step",
                branch=branch.id,
                kind="source_choice",
                message=f"Dropped backend '{name}' for this branch.",
                reasoning=why,
            ).model_dump()
        )
    confidences = [f["confidence"] for f in known] + [f["confidence"] for f in new_findings]
    texts = finding_texts(known + new_findings)
    uncovered = uncovered_parts(topic, texts)
    decision = branch_stop_decision(
        iteration,
        branch.allocated_iterations,
        config.sub_question_min_iterations,
        confidences,
        config.findings_for_stop,
        config.confidence_for_stop,
        distinct_sources=len({sid for f in known + new_findings for sid in f.get("source_ids", [])}),
        uncovered=[*uncovered, *unquoted_names(topic, texts)],
    )
    if not queries and not decision.stop:
        decision = StopDecision(True, f"nothing new to search after {iteration} iterations")
    log.append(LogEntry(node="research_step", branch=branch.id, kind="evaluate", message=decision.reason).model_dump())
    branch_update: dict[str, Any] = {}
    branch_count = int(payload.get("branch_count", 0))
    iterations_left = iterations_after(payload.get("iterations_left"), 1)
    if decision.stop and can_drill_down(branch, config, branch_count, iterations_left):
        branch_update, extra = evaluate_depth(
            services, config, branch, known + new_findings, config.max_total_sub_questions - branch_count, uncovered
        )
        costs += extra["costs"]
        log += extra["log"]
    services.emit(
        {"type": "branch_iteration_done", "branch": branch.id, "iteration": iteration, "findings": len(new_findings)}
    )
    return {
        "branches": {
            branch.id: {
                "status": "researching",
                "iteration_count": iteration,
                "queries": [*branch.queries, *queries],
                "shown_passages": [*branch.shown_passages, *shown],
                "research_done": decision.stop,
                "backend_stats": stats,
                "dropped_backends": dropped,
                "last_outcome": outcome,
                "stop_reason": decision.reason if decision.stop else None,
                **read_stats.branch_update(branch),
                **branch_update,
            }
        },
        "findings": new_findings,
        "sources": [s.model_dump() for s in cited],
        "costs": costs,
        "log": log,
        "warnings": warnings,
    }
