"""synthesize_branch and meta_synthesize: cited answers per branch, then the integrated report."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import LLMError
from research_core.llm.prompts import render_prompt
from research_core.output.sanitize import strip_terminal_escapes
from research_core.planning.hypotheses import judge_hypothesis
from research_core.planning.plan import section_numbers, tree_order
from research_core.research.evidence import support_share
from research_core.schemas import LogEntry, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState
from research_core.synthesis.grounding import Grounded, ground_text, grounding_note, removed_note
from research_core.synthesis.report import assemble_report, branch_section, drop_sections
from research_core.synthesis.verification import verify_citations
from research_core.text.citations import (
    cited_source_ids,
    drop_unknown_numbers,
    finding_source_ids,
    global_numbering,
    markers_to_numbered,
    numbered_to_markers,
)

# Share of a finding's content words an answer must contain to count as stating it.
SAID_BAR = 0.6


def findings_as_markdown(findings: list[dict], local: dict[str, int]) -> str:
    """Findings as a bullet list citing their sources with local numbers."""
    lines = []
    for f in findings:
        refs = "".join(f"[{local[sid]}]" for sid in f.get("source_ids", []) if sid in local)
        lines.append(f"- {f['text']} {refs}".rstrip())
    return "\n".join(lines)


def synthesize_branch(payload: dict[str, Any], runtime: Runtime[Services]) -> dict:
    """Write the branch's cited answer; citations that point nowhere are removed."""
    services = runtime.context
    config = services.config
    branch = SubQuestion(**payload["branch"])
    findings: list[dict] = payload.get("findings", [])
    sources: list[dict] = payload.get("sources", [])
    costs: list[dict] = []
    log: list[dict] = []
    warnings: list[str] = []
    extra_fields: dict[str, Any] = {}
    services.emit({"type": "branch_synthesis_started", "branch": branch.id})
    children: list[dict] = payload.get("children", [])
    if not findings and not children:
        reason = branch.stop_reason or "no usable search results"
        text = (
            f"No evidence found. No findings were gathered for this sub-question ({reason}), so it remains unanswered."
        )
        log.append(
            LogEntry(node="synthesize_branch", branch=branch.id, message="No findings to synthesize.").model_dump()
        )
        confidence = None
    else:
        ordered_ids = finding_source_ids(findings)
        for child in children:
            ordered_ids += [sid for sid in cited_source_ids(child.get("synthesis") or "") if sid not in ordered_ids]
        by_id = {s["id"]: s for s in sources}
        ordered_ids = [sid for sid in ordered_ids if sid in by_id]
        local = {sid: i for i, sid in enumerate(ordered_ids, start=1)}
        listing = "\n".join(f"[{n}] {by_id[sid].get('title') or by_id[sid]['url']}" for sid, n in local.items())
        bullet_list = findings_as_markdown(findings, local)
        system, user = render_prompt(
            "synthesize_branch",
            sub_question=branch.question_text,
            findings="\n".join(
                f"- (confidence {f['confidence']:.1f}) {line[2:]}"
                for f, line in zip(findings, bullet_list.splitlines(), strict=True)
            ),
            sources=listing,
            children="\n\n".join(
                f"{c['question_text']}\n{markers_to_numbered(c.get('synthesis') or '', local)}" for c in children
            )
            or "(none)",
            language=language_instruction(config),
        )
        reverse = {n: sid for sid, n in local.items()}
        if branch.kind == "hypothesis":
            text, extra = _judge(services, config, branch, findings, bullet_list, listing, reverse)
            extra_fields["hypothesis"] = extra.pop("hypothesis")
        else:
            text, extra = _write_answer(services, branch, system, user, bullet_list, reverse)
        costs += extra["costs"]
        log += extra["log"]
        warnings += extra["warnings"]
        if config.verify_citations and cited_source_ids(text):
            check = verify_citations(
                services.llm, text, {s["id"]: s for s in sources}, node="synthesize_branch", branch=branch.id
            )
            text = check.text
            costs += [c.model_dump() for c in check.costs]
            extra_fields.update(citations_checked=check.checked, citations_supported=check.supported)
            message = f"Citations checked ({check.method}): {check.supported}/{check.checked} supported" + (
                f"; {check.removed} unsupported citation(s) removed" if check.removed else ""
            )
            log.append(
                LogEntry(
                    node="synthesize_branch",
                    branch=branch.id,
                    kind="citations",
                    message=message,
                    reasoning=check.reasoning,
                ).model_dump()
            )
        text, grounding_fields, grounding_log = ground_branch_answer(text, findings, sources, reverse, bullet_list)
        extra_fields.update(grounding_fields)
        log.append(LogEntry(node="synthesize_branch", branch=branch.id, **grounding_log).model_dump())
        confs = [f["confidence"] for f in findings] + [c["confidence"] for c in children if c.get("confidence")]
        confidence = round(sum(confs) / len(confs), 3) if confs else None
    services.emit({"type": "branch_completed", "branch": branch.id})
    return {
        "branches": {
            branch.id: {
                "status": "completed",
                "synthesis": text,
                "confidence": confidence,
                "research_done": True,
                **extra_fields,
            }
        },
        "costs": costs,
        "log": log,
        "warnings": warnings,
    }


def ground_branch_answer(
    text: str, findings: list[dict], sources: list[dict], reverse: dict[int, str], bullet_list: str
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """Ground a branch answer in its sources; (text, branch fields, log entry fields).

    Statements no source supports are removed; if none is left, the findings (each already
    supported by its source) stand in. Findings the answer leaves out are listed under
    "Also found", so every checked finding reaches the report once. An answer resting on one
    source says so.
    """
    by_id = {s["id"]: s for s in sources}
    grounded = ground_text(text, by_id)
    if grounded.statements and not cited_source_ids(grounded.text) and findings:
        listed, _ = numbered_to_markers(bullet_list, reverse)
        removed = grounded.removed
        grounded = ground_text(listed, by_id)
        grounded.removed = removed + grounded.removed
    else:
        left_out = [f for f in findings if not said_in(f["text"], grounded.text)]
        if left_out:
            local = {sid: n for n, sid in reverse.items()}
            listed, _ = numbered_to_markers(findings_as_markdown(left_out, local), reverse)
            extra = ground_text(listed, by_id)
            grounded.text = f"{grounded.text}\n\nAlso found:\n{extra.text}".strip()
            grounded.statements += extra.statements
            grounded.supported += extra.supported
            grounded.removed += extra.removed
    text = grounded.text
    used = cited_source_ids(text)
    if len(used) == 1:
        text += "\n\nThis answer rests on a single source."
    fields = {"statements_checked": grounded.statements, "statements_supported": grounded.supported}
    reasoning = removed_note(grounded, 6)
    return text, fields, {"kind": "grounding", "message": grounding_note(grounded), "reasoning": reasoning}


def said_in(finding: str, answer: str) -> bool:
    """Whether the answer already states the finding (most of its content words are in it)."""
    return support_share(finding, answer) >= SAID_BAR


def _write_answer(
    services: Services, branch: SubQuestion, system: str, user: str, bullet_list: str, reverse: dict[int, str]
) -> tuple[str, dict]:
    """A question branch's cited answer (its findings list if the LLM fails)."""
    log: list[dict] = []
    try:
        raw, entry = services.llm.complete(
            "synthesize_branch", system, user, node="synthesize_branch", branch=branch.id, max_tokens=700
        )
    except LLMError as exc:
        text, _ = numbered_to_markers(bullet_list, reverse)
        message = f"Synthesis of {branch.id} failed ({exc.user_message}); its findings are listed instead."
        log.append(LogEntry(node="synthesize_branch", branch=branch.id, kind="fallback", message=message).model_dump())
        return text, {"costs": [c.model_dump() for c in exc.costs], "log": log, "warnings": [message]}
    text, removed = numbered_to_markers(raw.strip(), reverse)
    if removed:
        message = f"Removed {removed} citation(s) to sources that do not exist."
        log.append(LogEntry(node="synthesize_branch", branch=branch.id, kind="citations", message=message).model_dump())
    if not cited_source_ids(text):
        # Small models often forget citations; grounding attaches them or lists the findings instead.
        message = "The synthesis cited no source; the engine attaches citations from the findings."
        log.append(LogEntry(node="synthesize_branch", branch=branch.id, kind="citations", message=message).model_dump())
    return text, {"costs": [entry.model_dump()], "log": log, "warnings": []}


def _judge(
    services: Services,
    config: RunConfig,
    branch: SubQuestion,
    findings: list[dict],
    bullet_list: str,
    listing: str,
    reverse: dict[int, str],
) -> tuple[str, dict]:
    """A hypothesis branch's answer: its verdict and evidence (inconclusive if the judge fails)."""
    findings_text = "\n".join(
        f"- (confidence {f['confidence']:.1f}) {line[2:]}"
        for f, line in zip(findings, bullet_list.splitlines(), strict=True)
    )
    try:
        hypothesis, text, entries, reasoning = judge_hypothesis(
            services.llm, config, branch, findings_text, listing, reverse
        )
    except LLMError as exc:
        listed, _ = numbered_to_markers(bullet_list, reverse)
        hypothesis = {**(branch.hypothesis or {}), "verdict": "inconclusive", "evidence": listed, "pivot": None}
        message = f"Judging {branch.id} failed ({exc.user_message}); marked inconclusive with its findings."
        entry = LogEntry(node="synthesize_branch", branch=branch.id, kind="fallback", message=message)
        text = f"**Verdict: inconclusive** (the judgement failed)\n\n{listed}"
        return text, {
            "costs": [c.model_dump() for c in exc.costs],
            "log": [entry.model_dump()],
            "warnings": [message],
            "hypothesis": hypothesis,
        }
    entry = LogEntry(
        node="synthesize_branch",
        branch=branch.id,
        kind="hypothesis",
        message=f"Verdict: {hypothesis['verdict']}"
        + (f"; pivot: {hypothesis['pivot']}" if hypothesis.get("pivot") else ""),
        reasoning=reasoning,
    )
    return text, {
        "costs": [c.model_dump() for c in entries],
        "log": [entry.model_dump()],
        "warnings": [],
        "hypothesis": hypothesis,
    }


def ordered_syntheses(state: ResearchState) -> list[tuple[dict, str]]:
    """(branch, synthesis with markers) for completed branches, in tree order."""
    branches = state.get("branches", {})
    out = []
    for bid in tree_order(branches, state.get("branch_order", [])):
        b = branches[bid]
        if b.get("status") == "completed" and b.get("synthesis"):
            out.append((b, b["synthesis"]))
    return out


def report_grounding(state: ResearchState, overview: Grounded | None) -> dict[str, int]:
    """Statements checked and supported in the assembled report: the overview's and its branch answers'."""
    checked = overview.statements if overview else 0
    supported = overview.supported if overview else 0
    for b, _ in ordered_syntheses(state):
        checked += int(b.get("statements_checked") or 0)
        supported += int(b.get("statements_supported") or 0)
    return {"statements": checked, "supported": supported}


def assembled_report(state: ResearchState, numbering: dict[str, int], overview: str = "") -> str:
    """The report: the overview (numbered citations) around the branch answers, then the limitations."""
    numbers = section_numbers(state.get("branches", {}), state.get("branch_order", []))
    sections = [
        branch_section(numbers.get(b["id"], b["id"]), b["question_text"], markers_to_numbered(text, numbering))
        for b, text in ordered_syntheses(state)
    ]
    gaps = (state.get("coverage") or {}).get("gaps") or []
    return assemble_report(overview, sections, gaps) or "No branch produced an answer."


def report_fallback(
    state: ResearchState, numbering: dict[str, int], message: str, costs: list[dict], log: list[dict]
) -> dict:
    """The update that shows the branch answers without an overview, saying why."""
    return {
        "final_answer": assembled_report(state, numbering),
        "status": "completed_with_fallback",
        "costs": costs,
        "warnings": [message],
        "log": [*log, LogEntry(node="meta_synthesize", kind="fallback", message=message).model_dump()],
        "report_grounding": report_grounding(state, None),
    }


def meta_synthesize(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Write the overview and assemble the report around the branch answers (flat runs: the branch answer).

    The model writes the direct answer and how the parts connect; every statement of it is grounded.
    The engine adds each answered branch's grounded answer as a section and the limitations from
    the coverage step (see `synthesis.report`).
    """
    if state.get("status") == "cancelled":
        return {}
    config = runtime.context.config
    pieces = ordered_syntheses(state)
    numbering = global_numbering(text for _, text in pieces)
    if state.get("mode") == "flat":
        final = markers_to_numbered(pieces[0][1], numbering) if pieces else "No answer could be produced."
        return {"final_answer": final, "status": "completed"}
    if pieces and not numbering:
        parts = "\n".join(f"- {b['question_text']}" for b, _ in pieces)
        message = "No evidence was found for any part of the question, so no answer is given."
        final = f"{message}\n\nParts researched without evidence:\n{parts}"
        entry = LogEntry(node="meta_synthesize", kind="evidence", message=message)
        return {"final_answer": final, "status": "completed", "warnings": [message], "log": [entry.model_dump()]}
    if not pieces:
        message = "No branch produced an answer, so there is nothing to synthesize."
        return {"final_answer": message, "status": "completed_with_fallback", "warnings": [message]}
    sections = section_numbers(state.get("branches", {}), state.get("branch_order", []))
    sub_answers = "\n\n".join(
        f"### {sections.get(b['id'], b['id'])} {b['question_text']}\n{markers_to_numbered(text, numbering)}"
        for b, text in pieces
    )
    mode_instructions = (
        "The sub-answers test hypotheses. Add a section '## Hypotheses' that states each hypothesis, its verdict "
        "(validated, refuted or inconclusive) and the evidence for it, with citations."
        if state.get("mode") == "hypothesis"
        else ""
    )
    system, user = render_prompt(
        "meta_synthesis",
        question=state["question"],
        sub_answers=sub_answers,
        language=language_instruction(config),
        mode_instructions=mode_instructions,
    )
    runtime.context.emit({"type": "meta_synthesis_started"})
    try:
        raw, entry = runtime.context.llm.complete(
            "meta_synthesis", system, user, node="meta_synthesize", tier="synthesis", max_tokens=900
        )
    except LLMError as exc:
        message = (
            f"The final synthesis failed ({exc.user_message}); the report shows the branch answers without an overview."
        )
        return report_fallback(state, numbering, message, [c.model_dump() for c in exc.costs], [])
    # escape sequences would count as words in the grounding check; they never belong in a report
    text, removed = drop_unknown_numbers(strip_terminal_escapes(raw).strip(), len(numbering))
    log = []
    if removed:
        log.append(
            LogEntry(
                node="meta_synthesize", kind="citations", message=f"Removed {removed} citation(s) to unknown sources."
            ).model_dump()
        )
    if len(text) < 40:
        message = "The final synthesis came back empty; the report shows the branch answers without an overview."
        return report_fallback(state, numbering, message, [entry.model_dump()], log)
    reverse = {n: sid for sid, n in numbering.items()}
    allowed = {s["id"]: s for s in state.get("sources", []) if s["id"] in numbering}
    grounded = ground_text(drop_sections(numbered_to_markers(text, reverse)[0]), allowed)
    reasoning = removed_note(grounded, 8)
    log.append(
        LogEntry(
            node="meta_synthesize", kind="grounding", message=grounding_note(grounded), reasoning=reasoning
        ).model_dump()
    )
    if grounded.statements and not cited_source_ids(grounded.text):
        message = "No statement of the overview was supported by a source; the report shows the branch answers."
        return report_fallback(state, numbering, message, [entry.model_dump()], log)
    text = assembled_report(state, numbering, markers_to_numbered(grounded.text, numbering))
    log.append(LogEntry(node="meta_synthesize", message=f"Report written ({len(text)} characters).").model_dump())
    return {
        "final_answer": text,
        "status": "completed",
        "costs": [entry.model_dump()],
        "log": log,
        "report_grounding": report_grounding(state, grounded),
    }
