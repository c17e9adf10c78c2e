"""Query planning: what a branch's research step searches for.

The model writes a step's queries from the branch's question, what it has found so far and the
parts still missing (`plan_queries`); with the embedded model the first step's queries are written
by code instead (`code_queries`). A query already searched is never searched again: when the model
repeats itself, words not searched yet stand in (`fresh_queries`), and a step with nothing new to
search ends the branch's research.
"""

from __future__ import annotations

import textwrap

from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import research_focus
from research_core.planning.question_shape import compared_topic, frame_terms, stand_alone, with_frame
from research_core.research.first_queries import first_queries, fresh_queries
from research_core.schemas import LogEntry, QueryPlanOutput, SubQuestion
from research_core.services import Services
from research_core.text.words import folded

KNOWN_IN_QUERY_PROMPT = 5


def evidence_topic(branch: SubQuestion, question: str) -> str:
    """What a branch's evidence must be about: its question (with the main question's subjects when it
    names none, as an edited or drilled-down question may not), or a hypothesis within the main question."""
    if branch.kind == "question":
        topic = stand_alone(branch.question_text, question)
        frame = frame_terms(topic, question)
        return f"{topic} ({frame})" if frame else topic
    return f"{branch.question_text} ({question})"


def framed(queries: list[str], branch: SubQuestion, question: str) -> list[str]:
    """A question branch's queries with the main question's frame words it lost (`frame_terms`) and what
    a "Compare T in A and B" question compares (`compared_topic`), each added where a query lacks it."""
    if branch.kind != "question":
        return queries
    return with_frame(with_frame(queries, frame_terms(branch.question_text, question)), compared_topic(question))


def new_queries(proposed: list[str], searched: set[str]) -> list[str]:
    """The proposed queries, whitespace collapsed and clipped, without those searched already or repeated."""
    queries: list[str] = []
    for q in proposed:
        q = " ".join(q.split())[:200]
        if q and folded(q) not in searched and folded(q) not in {folded(x) for x in queries}:
            queries.append(q)
    return queries


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
    searched = {folded(q) for q in branch.queries}
    try:
        out, entries = services.llm.structured(
            "plan_queries", QueryPlanOutput, system, user, node="research_step", branch=branch.id, max_tokens=300
        )
    except StructuredOutputError as exc:
        log = LogEntry(
            node="research_step",
            branch=branch.id,
            kind="fallback",
            message="Query planning failed; searching with the sub-question itself.",
            reasoning=exc.user_message,
        )
        queries = new_queries(framed([branch.question_text], branch, question), searched)
        queries = queries or unsearched_queries(branch, question, missing)
        # empty when every query the engine could write was searched already: the branch stops searching
        return queries, {"costs": [c.model_dump() for c in exc.costs], "log": [log.model_dump()]}
    queries = new_queries(framed(out.queries, branch, question), searched)
    retry = branch.last_outcome in ("no_results", "irrelevant")
    if not queries:
        # the model repeated itself: search words not searched yet rather than the same words again
        queries = unsearched_queries(branch, question, missing)
    label = f"Reformulated queries after {(branch.last_outcome or '').replace('_', ' ')}" if retry else "Queries"
    log = LogEntry(
        node="research_step",
        branch=branch.id,
        kind="retry" if retry else "queries",
        message=f"{label}: {queries}",
        reasoning=out.reasoning,
    )
    return queries, {"costs": [c.model_dump() for c in entries], "log": [log.model_dump()]}


def unsearched_queries(branch: SubQuestion, question: str, missing: list[str] | None, limit: int = 2) -> list[str]:
    """Up to `limit` queries from the `missing` parts and the topic's keywords (`fresh_queries`), with
    their frame (`framed`), none searched before: framing may turn a new query into one already made."""
    searched = {folded(q) for q in branch.queries}
    candidates = fresh_queries(evidence_topic(branch, question), branch.queries, missing, limit=4 * limit)
    return new_queries(framed(candidates, branch, question), searched)[:limit]


def missing_queries(branch: SubQuestion, question: str, missing: list[str]) -> tuple[list[str], dict]:
    """A local model's queries for the parts and compared options its findings do not cover yet,
    written by code: the model, shown what is missing, writes the same parts back at the cost of a
    prompt read; same return shape as `plan_queries`."""
    queries = unsearched_queries(branch, question, missing)
    log = LogEntry(
        node="research_step",
        branch=branch.id,
        kind="queries",
        message=f"Queries: {queries}",
        reasoning=f"Searching for what no finding covers yet: {'; '.join(missing[:3])} (no model call).",
    )
    return queries, {"costs": [], "log": [log.model_dump()]}


def code_queries(branch: SubQuestion, topic: str, question: str) -> tuple[list[str], dict]:
    """A local model's first queries, written by code (`first_queries`); same return shape as `plan_queries`."""
    queries = framed(first_queries(topic), branch, question)
    log = LogEntry(
        node="research_step",
        branch=branch.id,
        kind="queries",
        message=f"Queries: {queries}",
        reasoning="First search written from the question itself (no model call).",
    )
    return queries, {"costs": [], "log": [log.model_dump()]}


def step_queries(
    services: Services,
    question: str,
    branch: SubQuestion,
    known: list[dict],
    topic: str,
    iteration: int,
    missing: list[str],
) -> tuple[list[str], dict]:
    """A step's queries: written by code for the embedded model's first step of a question, and for its
    later steps while its findings leave something `missing` (`side_coverage.missing_for`) and the
    last search found something; planned by the model otherwise. A question's queries carry the main
    question's frame (`framed`). (queries, extra update)"""
    by_code = services.config.engine_first_queries and branch.kind == "question"
    if by_code and iteration == 1 and not branch.queries:
        return code_queries(branch, topic, question)
    if by_code and known and missing and branch.last_outcome not in ("no_results", "irrelevant"):
        queries, update = missing_queries(branch, question, missing)
        if queries:
            return queries, update
    return plan_queries(services, question, branch, known, missing)
