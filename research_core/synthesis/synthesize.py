"""synthesize_branch: each branch's cited answer (a hypothesis's verdict), checked and grounded.

The report around the answers is written by `meta_synthesize` (`synthesis/meta.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import LLMError
from research_core.llm.prompts import render_prompt
from research_core.planning.hypotheses import judge_hypothesis
from research_core.schemas import LogEntry, SubQuestion
from research_core.services import Services
from research_core.synthesis.evidence import finding_quotes, question_subjects
from research_core.synthesis.grounding import Grounded, ground_text, grounding_note, removed_note
from research_core.synthesis.lead import ALSO_FOUND, picked_lead
from research_core.synthesis.quoted_answer import answers_by_quote, quoted_answer
from research_core.synthesis.verification import verify_citations
from research_core.task_records import SynthesisTask
from research_core.text.citations import (
    cited_source_ids,
    finding_source_ids,
    markers_to_numbered,
    numbered_to_markers,
)
from research_core.text.support import support_share

# Share of a finding's content words an answer must contain to count as stating it.
SAID_BAR = 0.6


def findings_as_markdown(findings: list[dict], local: dict[str, int]) -> str:
    """Findings as a bullet list citing their sources with local numbers."""
    lines = []
    for f in findings:
        refs = "".join(f"[{local[sid]}]" for sid in f.get("source_ids", []) if sid in local)
        lines.append(f"- {f['text']} {refs}".rstrip())
    return "\n".join(lines)


@dataclass
class BranchAnswer:
    """A branch's answer as it is written, checked and grounded, with what it cost and logged."""

    text: str
    confidence: float | None = None
    fields: dict[str, Any] = field(default_factory=dict)
    costs: list[dict] = field(default_factory=list)
    log: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def update(self, branch_id: str) -> dict:
        """The state update completing branch `branch_id` with this answer."""
        return {
            "branches": {
                branch_id: {
                    "status": "completed",
                    "synthesis": self.text,
                    "confidence": self.confidence,
                    "research_done": True,
                    **self.fields,
                }
            },
            "costs": self.costs,
            "log": self.log,
            "warnings": self.warnings,
        }


def synthesize_branch(payload: SynthesisTask | dict[str, Any], runtime: Runtime[Services]) -> dict:
    """Write the branch's cited answer; citations that point nowhere are removed."""
    services = runtime.context
    task = SynthesisTask.model_validate(payload)
    branch, findings, children = task.branch, task.findings, task.children
    services.emit({"type": "branch_synthesis_started", "branch": branch.id})
    if not findings and not children:
        answer = no_evidence_answer(branch)
    else:
        answer = answer_branch(services, branch, findings, children, task.sources, task.question)
    services.emit({"type": "branch_completed", "branch": branch.id})
    return answer.update(branch.id)


def no_evidence_answer(branch: SubQuestion) -> BranchAnswer:
    """The answer of a branch with neither findings nor answered children: it remains unanswered."""
    reason = branch.stop_reason or "no usable search results"
    text = f"No evidence found. No findings were gathered for this sub-question ({reason}), so it remains unanswered."
    entry = LogEntry(node="synthesize_branch", branch=branch.id, message="No findings to synthesize.")
    return BranchAnswer(text, log=[entry.model_dump()])


def local_numbering(findings: list[dict], children: list[SubQuestion], sources: list[dict]) -> dict[str, int]:
    """Source id -> the number the branch's prompt cites it by: the findings' sources first, then the
    children's, each once, leaving out sources the task did not hand over."""
    ordered_ids = finding_source_ids(findings)
    for child in children:
        ordered_ids += [sid for sid in cited_source_ids(child.synthesis or "") if sid not in ordered_ids]
    known = {s["id"] for s in sources}
    return {sid: i for i, sid in enumerate((sid for sid in ordered_ids if sid in known), start=1)}


def findings_for_prompt(findings: list[dict], bullet_list: str, titles: dict[str, str] | None = None) -> str:
    """The findings' bullet list with each finding's confidence and, given `titles` (source id -> title),
    the page it is quoted from, as the prompts show it: a quote that does not name its system is
    still read as being about the page's subject."""
    titles = titles or {}
    lines = []
    for f, line in zip(findings, bullet_list.splitlines(), strict=True):
        page = next((titles[sid] for sid in f.get("source_ids", []) if titles.get(sid)), "")
        origin = f' from "{" ".join(page.split())[:80]}":' if page else ""
        lines.append(f"- (confidence {f['confidence']:.1f}){origin} {line[2:]}")
    return "\n".join(lines)


def branch_confidence(findings: list[dict], children: list[SubQuestion]) -> float | None:
    """The mean confidence of the branch's findings and of its answered children, if any."""
    confs = [f["confidence"] for f in findings] + [c.confidence for c in children if c.confidence]
    return round(sum(confs) / len(confs), 3) if confs else None


def answer_branch(
    services: Services,
    branch: SubQuestion,
    findings: list[dict],
    children: list[SubQuestion],
    sources: list[dict],
    question: str = "",
) -> BranchAnswer:
    """Write the answer (or a hypothesis's verdict), check its citations if asked, and ground it."""
    config = services.config
    local = local_numbering(findings, children, sources)
    by_id = {s["id"]: s for s in sources}
    listing = "\n".join(f"[{n}] {by_id[sid].get('title') or by_id[sid]['url']}" for sid, n in local.items())
    bullet_list = findings_as_markdown(findings, local)
    reverse = {n: sid for sid, n in local.items()}
    fields: dict[str, Any] = {}
    # the embedded model's written answers were where its reports went wrong (`synthesis.quoted_answer`)
    quoted = branch.kind == "question" and answers_by_quote(config, question or branch.question_text)
    if branch.kind == "hypothesis":
        text, extra = _judge(services, config, branch, findings, bullet_list, listing, reverse)
        fields["hypothesis"] = extra.pop("hypothesis")
    elif quoted:
        text, extra = _quote_answer(branch, findings, children, local)
    else:
        system, user = render_prompt(
            "synthesize_branch",
            sub_question=branch.question_text,
            findings=findings_for_prompt(
                findings, bullet_list, {sid: str(by_id[sid].get("title") or "") for sid in local}
            ),
            sources=listing,
            children="\n\n".join(
                f"{c.question_text}\n{markers_to_numbered(c.synthesis or '', local)}" for c in children
            )
            or "(none)",
            language=language_instruction(config),
        )
        text, extra = _write_answer(services, branch, system, user, bullet_list, reverse)
    answer = BranchAnswer(text, fields=fields, costs=extra["costs"], log=extra["log"], warnings=extra["warnings"])
    # a quoted answer cites each quote to the passage it was copied from: there is nothing to check
    if config.verify_citations and not quoted and cited_source_ids(answer.text):
        check_citations(services, answer, sources, branch.id)
    answer.text, grounding_fields, grounding_log = ground_branch_answer(
        answer.text,
        findings,
        sources,
        reverse,
        bullet_list,
        f"{branch.question_text} {question}".strip(),
        branch.question_text,
        list_left_out=not quoted,
    )
    answer.fields.update(grounding_fields)
    answer.log.append(LogEntry(node="synthesize_branch", branch=branch.id, **grounding_log).model_dump())
    answer.confidence = branch_confidence(findings, children)
    return answer


def check_citations(services: Services, answer: BranchAnswer, sources: list[dict], branch_id: str) -> None:
    """Check each citation of `answer` against its source, removing those the source does not support."""
    check = verify_citations(
        services.llm,
        answer.text,
        {s["id"]: s for s in sources},
        node="synthesize_branch",
        branch=branch_id,
        judge=services.config.citation_judge,
    )
    answer.text = check.text
    answer.costs += [c.model_dump() for c in check.costs]
    answer.fields.update(citations_checked=check.checked, citations_supported=check.supported)
    message = f"Citations checked ({check.method}): {check.supported}/{check.checked} supported" + (
        f"; {check.removed} unsupported citation(s) removed" if check.removed else ""
    )
    entry = LogEntry(
        node="synthesize_branch", branch=branch_id, kind="citations", message=message, reasoning=check.reasoning
    )
    answer.log.append(entry.model_dump())


def ground_branch_answer(
    text: str,
    findings: list[dict],
    sources: list[dict],
    reverse: dict[int, str],
    bullet_list: str,
    topic: str = "",
    branch: str = "",
    list_left_out: bool = True,
) -> tuple[str, dict[str, Any], dict[str, str]]:
    """Ground a branch answer in its sources; (text, branch fields, log entry fields).

    Statements no source supports are removed; if none is left, the findings (each already
    supported by its source) stand in. Findings the answer leaves out are listed under
    "Also found" (unless not `list_left_out`: an answer made of every finding's quote left out only
    what grounding removed), so every checked finding reaches the report once. An answer resting on
    one source says so.
    """
    by_id = {s["id"]: s for s in sources}
    quotes, names = finding_quotes(findings), question_subjects(topic)

    def ground(body: str) -> Grounded:
        return ground_text(body, by_id, quotes, names, topic, branch=branch)

    grounded = ground(text)
    if grounded.statements and not cited_source_ids(grounded.text) and findings:
        listed, _ = numbered_to_markers(bullet_list, reverse)
        removed, reasons = grounded.removed, grounded.reasons
        grounded = ground(listed)
        grounded.removed, grounded.reasons = removed + grounded.removed, reasons + grounded.reasons
    elif list_left_out:
        left_out = [f for f in findings if not said_in(f["text"], grounded.text)]
        if left_out:
            local = {sid: n for n, sid in reverse.items()}
            listed, _ = numbered_to_markers(findings_as_markdown(left_out, local), reverse)
            extra = ground(listed)
            grounded.text = f"{grounded.text}\n\n{ALSO_FOUND}\n{extra.text}".strip()
            grounded.statements += extra.statements
            grounded.supported += extra.supported
            grounded.removed += extra.removed
            grounded.reasons += extra.reasons
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


def _quote_answer(
    branch: SubQuestion,
    findings: list[dict],
    children: list[SubQuestion],
    local: dict[str, int],
) -> tuple[str, dict]:
    """A question branch's answer made of its findings' quotes (`synthesis.quoted_answer`), no model call."""
    text = quoted_answer(findings, local, branch.question_text)
    if not text:  # its findings are all in its drill-down children: their most direct sentences
        text = picked_lead(branch.question_text, [(c.question_text, c.synthesis or "") for c in children])
    message = "The answer lists the findings' quotes (quoted answers: the model writes no answer)."
    entry = LogEntry(node="synthesize_branch", branch=branch.id, kind="quoted", message=message)
    return text, {"costs": [], "log": [entry.model_dump()], "warnings": []}


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
    try:
        hypothesis, text, entries, reasoning = judge_hypothesis(
            services.llm, config, branch, findings_for_prompt(findings, bullet_list), listing, reverse
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
