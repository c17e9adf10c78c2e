"""meta_synthesize: the overview, and the report assembled around the branch answers."""

from __future__ import annotations

import re
from dataclasses import replace

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import LLMError
from research_core.llm.prompts import render_prompt
from research_core.schemas import LogEntry, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState, branches_of
from research_core.synthesis.evidence import finding_quotes, question_subjects
from research_core.synthesis.grounding import Grounded, ground_text, grounding_note, removed_note
from research_core.synthesis.lead import picked_lead
from research_core.synthesis.quoted_answer import answers_by_quote
from research_core.synthesis.report import assemble_report, branch_section, drop_sections, limitations
from research_core.synthesis.sides import part_side_gaps, side_gaps, unevidenced_sides
from research_core.text.citations import (
    cited_source_ids,
    drop_unknown_numbers,
    global_numbering,
    markers_to_numbered,
    numbered_to_markers,
)
from research_core.text.sanitize import strip_terminal_escapes
from research_core.tree import BranchTree


def ordered_syntheses(state: ResearchState) -> list[tuple[SubQuestion, str]]:
    """(branch, synthesis with markers) for completed branches, in tree order."""
    branches = branches_of(state)
    out = []
    for bid in BranchTree(branches, state.get("branch_order", [])).depth_first():
        b = branches[bid]
        if b.status == "completed" and b.synthesis:
            out.append((b, b.synthesis))
    return out


def report_grounding(state: ResearchState, overview: Grounded | None) -> dict[str, int]:
    """Statements checked and supported in the assembled report: the overview's and its branch answers'."""
    checked = overview.statements if overview else 0
    supported = overview.supported if overview else 0
    for b, _ in ordered_syntheses(state):
        checked += b.statements_checked
        supported += b.statements_supported
    return {"statements": checked, "supported": supported}


def assembled_report(state: ResearchState, numbering: dict[str, int], overview: str = "") -> str:
    """The report: the overview (numbered citations) around the branch answers, then the limitations."""
    numbers = BranchTree(branches_of(state), state.get("branch_order", [])).numbers()
    answers = ordered_syntheses(state)
    sections = [
        branch_section(numbers.get(b.id, b.id), b.question_text, markers_to_numbered(text, numbering))
        for b, text in answers
    ]
    gaps = [*((state.get("coverage") or {}).get("gaps") or []), *cited_side_gaps(state, numbering)]
    gaps += part_gaps(state, answers, numbers, numbering)
    picked = picked_lead(state["question"], ((b.question_text, text) for b, text in answers))
    report = assemble_report(overview, sections, gaps, markers_to_numbered(picked, numbering))
    return report or "No branch produced an answer."


def cited_side_gaps(state: ResearchState, numbering: dict[str, int]) -> list[str]:
    """Limitations lines for the options of a comparison that no cited source is about (`synthesis.sides`)."""
    return side_gaps(state["question"], [s for s in state.get("sources", []) if s["id"] in numbering])


def part_gaps(
    state: ResearchState, answers: list[tuple[SubQuestion, str]], numbers: dict[str, str], numbering: dict[str, int]
) -> list[str]:
    """Limitations lines for each part whose own comparison cites no source about one of its options
    (`sides.part_side_gaps`), beside those the whole report already names."""
    sources = {s["id"]: s for s in state.get("sources", [])}
    reported = unevidenced_sides(state["question"], [s for s in sources.values() if s["id"] in numbering])
    out: list[str] = []
    for b, text in answers:
        cited = [sources[sid] for sid in cited_source_ids(text) if sid in sources]
        if cited:
            out += part_side_gaps(numbers.get(b.id, b.id), b.question_text, cited, reported)
    return out


def report_fallback(
    state: ResearchState, numbering: dict[str, int], message: str, costs: list[dict], log: list[dict]
) -> dict:
    """The update that shows the branch answers without the model's overview, saying why (the report
    opens with the direct answer the engine picks from them, `synthesis.lead`)."""
    return {
        "final_answer": assembled_report(state, numbering),
        "status": "completed_with_fallback",
        "costs": costs,
        "warnings": [message],
        "log": [*log, LogEntry(node="meta_synthesize", kind="fallback", message=message).model_dump()],
        "report_grounding": report_grounding(state, None),
    }


def quoted_report(state: ResearchState, numbering: dict[str, int]) -> dict:
    """The report of a run with quoted answers: no overview is written; it opens with each branch
    answer's most direct quoted sentence (`synthesis.lead`) and the branch answers follow."""
    message = "The report opens with the branch answers' most direct sentences (quoted answers: no overview)."
    entry = LogEntry(node="meta_synthesize", kind="quoted", message=message)
    return {
        "final_answer": assembled_report(state, numbering),
        "status": "completed",
        "log": [entry.model_dump()],
        "report_grounding": report_grounding(state, None),
    }


def report_without_overview(
    state: ResearchState, pieces: list[tuple[SubQuestion, str]], numbering: dict[str, int]
) -> dict | None:
    """The report when no overview is asked for: a flat run's answer, no evidence at all, or no answer.

    None when the overview is to be written.
    """
    if state.get("mode") == "flat":
        final = markers_to_numbered(pieces[0][1], numbering) if pieces else "No answer could be produced."
        if pieces:
            final = "\n\n".join(p for p in (final, limitations(cited_side_gaps(state, numbering))) if p)
        return {"final_answer": final, "status": "completed"}
    if pieces and not numbering:
        parts = "\n".join(f"- {b.question_text}" for b, _ in pieces)
        message = "No evidence was found for any part of the question, so no answer is given."
        final = f"{message}\n\nParts researched without evidence:\n{parts}"
        entry = LogEntry(node="meta_synthesize", kind="evidence", message=message)
        return {"final_answer": final, "status": "completed", "warnings": [message], "log": [entry.model_dump()]}
    if not pieces:
        message = "No branch produced an answer, so there is nothing to synthesize."
        return {"final_answer": message, "status": "completed_with_fallback", "warnings": [message]}
    return None


def overview_prompt(
    state: ResearchState, config: RunConfig, pieces: list[tuple[SubQuestion, str]], numbering: dict[str, int]
) -> tuple[str, str]:
    """The meta-synthesis prompt: the question and every branch answer under its section number."""
    sections = BranchTree(branches_of(state), state.get("branch_order", [])).numbers()
    sub_answers = "\n\n".join(
        f"### {sections.get(b.id, b.id)} {b.question_text}\n{markers_to_numbered(text, numbering)}"
        for b, text in pieces
    )
    mode_instructions = (
        "The sub-answers test hypotheses. Add a section '## Hypotheses' that states each hypothesis, its verdict "
        "(validated, refuted or inconclusive) and the evidence for it, with citations."
        if state.get("mode") == "hypothesis"
        else ""
    )
    return render_prompt(
        "meta_synthesis",
        question=state["question"],
        sub_answers=sub_answers,
        language=language_instruction(config),
        mode_instructions=mode_instructions,
    )


def clean_overview(raw: str, source_count: int) -> tuple[str, list[dict]]:
    """The model's overview without terminal escapes or citations of unknown numbers; (text, log)."""
    # escape sequences would count as words in the grounding check; they never belong in a report
    text, removed = drop_unknown_numbers(strip_terminal_escapes(raw).strip(), source_count)
    if not removed:
        return text, []
    message = f"Removed {removed} citation(s) to unknown sources."
    return text, [LogEntry(node="meta_synthesize", kind="citations", message=message).model_dump()]


def ground_overview(state: ResearchState, text: str, numbering: dict[str, int]) -> Grounded:
    """The overview grounded in the sources its branch answers cite (sections it adds are dropped);
    a sentence that repeats a branch answer's goes, as the answer is printed beside it."""
    reverse = {n: sid for sid, n in numbering.items()}
    allowed = {s["id"]: s for s in state.get("sources", []) if s["id"] in numbering}
    question = state["question"]
    body = drop_sections(numbered_to_markers(text, reverse)[0])
    answers = [text for _, text in ordered_syntheses(state)]
    known = [s for answer in answers for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if s.strip()]
    quotes = finding_quotes(state.get("findings", []))
    return ground_text(body, allowed, quotes, question_subjects(question), question, known)


def meta_synthesize(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Write the overview and assemble the report around the branch answers (flat runs: the branch
    answer; with quoted answers, no overview: `quoted_report`).

    The model writes the direct answer and how the parts connect; every statement of it is grounded.
    When none of it holds, the engine picks the direct answer from the branch answers (`synthesis.lead`).
    The engine adds each answered branch's grounded answer as a section and the limitations from
    the coverage step (see `synthesis.report`).
    """
    if state.get("status") == "cancelled":
        return {}
    pieces = ordered_syntheses(state)
    numbering = global_numbering(text for _, text in pieces)
    early = report_without_overview(state, pieces, numbering)
    if early is not None:
        return early
    if answers_by_quote(runtime.context.config, state["question"]) and state.get("mode") != "hypothesis":
        return quoted_report(state, numbering)
    system, user = overview_prompt(state, runtime.context.config, pieces, numbering)
    runtime.context.emit({"type": "meta_synthesis_started"})
    try:
        raw, entry = runtime.context.llm.complete(
            "meta_synthesis", system, user, node="meta_synthesize", tier="synthesis", max_tokens=600
        )
    except LLMError as exc:
        message = (
            f"The final synthesis failed ({exc.user_message}); the report shows the branch answers without an overview."
        )
        return report_fallback(state, numbering, message, [c.model_dump() for c in exc.costs], [])
    text, log = clean_overview(raw, len(numbering))
    if len(text) < 40:
        message = "The final synthesis came back empty; the report shows the branch answers without an overview."
        return report_fallback(state, numbering, message, [entry.model_dump()], log)
    grounded = ground_overview(state, text, numbering)
    reasoning = removed_note(grounded, 8)
    log.append(
        LogEntry(
            node="meta_synthesize", kind="grounding", message=grounding_note(grounded), reasoning=reasoning
        ).model_dump()
    )
    if grounded.statements and not cited_source_ids(grounded.text):
        message = (
            "No statement of the model's overview was supported by a source; the report opens with the "
            "branch answers' sentences that answer the question most directly."
        )
        log.append(LogEntry(node="meta_synthesize", kind="fallback", message=message).model_dump())
        grounded = replace(grounded, text="")
    text = assembled_report(state, numbering, markers_to_numbered(grounded.text, numbering))
    log.append(LogEntry(node="meta_synthesize", message=f"Report written ({len(text)} characters).").model_dump())
    return {
        "final_answer": text,
        "status": "completed",
        "costs": [entry.model_dump()],
        "log": log,
        "report_grounding": report_grounding(state, grounded),
    }
