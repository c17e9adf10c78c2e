"""Searching: a step's queries sent to every usable backend, and the results worth reading kept.

A backend that is unreachable is disabled for the run; any other failure fails that one query,
and the user hears of it once. Results are tagged with the branch, de-duplicated by address
(the best relevance kept) and put best first, a query that names a product ranking that product's
own documentation first (`own_documentation`); navigation pages and off-topic results go before
anything is read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from research_core.research.evidence import source_relevance
from research_core.research.navigation import list_reason, navigation_reason, page_navigation_reason
from research_core.research.own_documentation import own_documentation_first, results_to_fetch
from research_core.research.shown_passages import document_reader
from research_core.schemas import LogEntry, Source
from research_core.search.base import MAX_RESULTS_PER_QUERY, SearchBackend, SearchError, clip_source
from research_core.services import Services

logger = logging.getLogger(__name__)


def search_once(
    services: Services,
    backend: SearchBackend,
    query: str,
    per_query: int,
    branch_id: str,
    row: dict[str, int],
    warnings: list[str],
) -> tuple[list[Source] | None, dict]:
    """One query on one backend: (its results, or None when it failed; the log entry). Counts the
    results and errors in `row` and adds what the user must hear of to `warnings`."""
    try:
        results = backend.search(query, per_query)[:per_query]
    except SearchError as exc:
        row["errors"] += 1
        # Only a missing network disables a backend for the run; any other failure (a timeout,
        # an HTTP error, an answer that is not the backend's) fails this query alone, and the
        # user hears of it once: a run that found nothing must say why.
        if exc.unreachable and services.mark_down(backend.name, exc.user_message):
            warnings.append(f"{exc.user_message} (backend '{backend.name}' disabled for this run)")
        elif not exc.unreachable and exc.user_message not in warnings:
            warnings.append(exc.user_message)
        entry = LogEntry(node="research_step", branch=branch_id, kind="search_error", message=exc.user_message)
        return None, entry.model_dump()
    except Exception as exc:  # a backend bug must not lose the run
        row["errors"] += 1
        logger.exception("search backend %s failed", backend.name)
        message = f"{backend.name} failed: {type(exc).__name__}: {exc}"
        entry = LogEntry(node="research_step", branch=branch_id, kind="search_error", message=message)
        return None, entry.model_dump()
    row["results"] += len(results)
    message = f"{backend.name}: {len(results)} results for {query!r}"
    return results, LogEntry(node="research_step", branch=branch_id, kind="search", message=message).model_dump()


def run_searches(
    services: Services,
    queries: list[str],
    max_results: int,
    branch_id: str,
    exclude: list[str] | None = None,
    counts: dict[str, dict[str, int]] | None = None,
    products: list[str] | None = None,
) -> tuple[list[Source], list[dict], list[str]]:
    """Search every usable backend (less `exclude`) for every query; a query naming some of the question's
    `products` ranks their own documentation first (`own_documentation`).

    Returns (sources best first, log entries, warnings); fills `counts[backend]` with errors and results.
    """
    found: list[Source] = []
    log: list[dict] = []
    warnings: list[str] = []
    counts = counts if counts is not None else {}
    per_query = min(max_results, MAX_RESULTS_PER_QUERY)
    backends = [b for b in services.usable_backends() if b.name not in (exclude or [])]
    if not backends:
        entry = LogEntry(node="research_step", branch=branch_id, kind="search", message="No search backend is usable.")
        log.append(entry.model_dump())
    for backend in backends:
        for query in queries:
            if backend.name not in {b.name for b in services.usable_backends()}:
                break
            row = counts.setdefault(backend.name, {"errors": 0, "results": 0})
            fetch = results_to_fetch(query, products or [], per_query)
            results, entry = search_once(services, backend, query, fetch, branch_id, row, warnings)
            results = own_documentation_first(query, products or [], results or [])[:per_query]
            found += [clip_source(src).model_copy(update={"sub_question_id": branch_id}) for src in results]
            log.append(entry)
    return best_first(found), log, warnings


def best_first(sources: Iterable[Source]) -> list[Source]:
    """Each source once (by id), at the highest relevance any query gave it, best first; on a tie the
    one found first."""
    best: dict[str, Source] = {}
    for src in sources:
        if src.id not in best or best[src.id].relevance < src.relevance:
            best[src.id] = src
    return sorted(best.values(), key=lambda s: -s.relevance)


def keep_relevant(
    question: str, sources: list[Source], limit: int, branch_id: str, backends: Iterable[object] = ()
) -> tuple[list[Source], list[dict]]:
    """The best `limit` sources that pass the relevance gate, and log entries naming those refused.

    Navigation pages (indexes, site maps, change logs: `research.navigation`) are never evidence. A
    passage that is only a list (a command's synopsis) stands for its page no longer where a backend
    reads further into the document: its best passage with prose about `question` is read instead.
    """
    kept: list[Source] = []
    refused: list[str] = []
    for source in sources:
        navigation = navigation_reason(source.title, source.url, source.snippet)
        if navigation and not page_navigation_reason(source.title, source.url):
            prose = prose_passage(source, backends, question)
            source, navigation = (prose, None) if prose is not None else (source, navigation)
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


def prose_passage(source: Source, backends: Iterable[object], question: str) -> Source | None:
    """The best passage about `question` of the document `source` shows a list of, that is not a list
    itself, from the backend that found it (one with `passages_of(url, query)`); None when none reads on."""
    reader = document_reader(source, backends)
    if reader is None:
        return None
    for passage in reader.passages_of(source.url, question):
        if not list_reason(passage.snippet):
            return passage.model_copy(update={"relevance": source.relevance, "sub_question_id": source.sub_question_id})
    return None
