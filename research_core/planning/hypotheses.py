"""Hypothesis mode: propose testable hypotheses, judge each after research, pivot when refuted."""

from __future__ import annotations

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import LLMClient
from research_core.llm.prompts import render_prompt
from research_core.planning.budget import clamp
from research_core.planning.plan import branch_id
from research_core.schemas import CostEntry, HypothesesOutput, HypothesisVerdictOutput, SubQuestion
from research_core.text.citations import numbered_to_markers
from research_core.text.similarity import is_near_duplicate


def propose_hypotheses(
    llm: LLMClient, question: str, config: RunConfig, *, focus: str = "", count: tuple[int, int] | None = None
) -> tuple[HypothesesOutput, list[CostEntry]]:
    """Ask for hypotheses (raises StructuredOutputError when the model cannot produce them)."""
    low, high = count or (config.min_hypotheses, config.max_hypotheses)
    system, user = render_prompt(
        "propose_hypotheses",
        question=question,
        focus=focus or "(the whole question)",
        min_h=low,
        max_h=high,
        language=language_instruction(config),
    )
    return llm.structured("propose_hypotheses", HypothesesOutput, system, user, node="decompose_question")


def hypothesis_branches(
    out: HypothesesOutput, config: RunConfig, existing: dict[str, SubQuestion], limit: int, pivot_of: str | None = None
) -> list[SubQuestion]:
    """New hypothesis branches, skipping near-duplicates, highest prior confidence first, at most `limit`."""
    texts = [b.question_text for b in existing.values()]
    ranked = sorted(out.hypotheses, key=lambda h: -h.confidence)
    made: list[SubQuestion] = []
    n = sum(1 for b in existing.values() if not b.parent_id)
    for h in ranked:
        if len(made) >= limit or is_near_duplicate(h.statement, texts) is not None:
            continue
        texts.append(h.statement)
        n += 1
        while branch_id(n) in existing:
            n += 1
        priority = round(h.confidence / 10, 2)
        made.append(
            SubQuestion(
                id=branch_id(n),
                question_text=h.statement.strip()[:2000],
                priority=priority,
                rationale=h.expected_evidence or "Hypothesis to test.",
                kind="hypothesis",
                allocated_iterations=clamp(
                    round(priority * config.sub_question_max_iterations),
                    config.sub_question_min_iterations,
                    config.sub_question_max_iterations,
                ),
                hypothesis={
                    "search_strategy": h.search_strategy,
                    "initial_confidence": h.confidence,
                    "expected_evidence": h.expected_evidence,
                    "validation_criteria": h.validation_criteria,
                    "verdict": None,
                    "evidence": None,
                    "pivot": None,
                    "pivot_of": pivot_of,
                },
            )
        )
    return made


def research_focus(branch: SubQuestion) -> str:
    """What research on a branch looks for: the question, or the hypothesis and its search strategy."""
    if branch.kind == "hypothesis" and branch.hypothesis:
        strategy = branch.hypothesis.get("search_strategy") or ""
        return f"Test the hypothesis: {branch.question_text}" + (f" (search strategy: {strategy})" if strategy else "")
    return branch.question_text


def judge_hypothesis(
    llm: LLMClient,
    config: RunConfig,
    branch: SubQuestion,
    findings_text: str,
    listing: str,
    reverse: dict[int, str],
) -> tuple[dict, str, list[CostEntry], str]:
    """Judge a researched hypothesis. Returns (hypothesis update, synthesis text, costs, reasoning)."""
    system, user = render_prompt(
        "judge_hypothesis",
        hypothesis=branch.question_text,
        criteria=(branch.hypothesis or {}).get("validation_criteria") or "(none given)",
        findings=findings_text,
        sources=listing,
        language=language_instruction(config),
    )
    out, costs = llm.structured(
        "judge_hypothesis",
        HypothesisVerdictOutput,
        system,
        user,
        node="synthesize_branch",
        branch=branch.id,
        max_tokens=600,
    )
    evidence, _removed = numbered_to_markers(out.evidence.strip(), reverse)
    update = {
        **(branch.hypothesis or {}),
        "verdict": out.verdict,
        "evidence": evidence,
        "confidence": out.confidence,
        "pivot": out.pivot if out.verdict != "validated" and out.pivot else None,
    }
    text = f"**Verdict: {out.verdict}** (confidence {out.confidence}/10)\n\n{evidence}"
    return update, text, costs, out.reasoning
