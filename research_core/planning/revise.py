"""revise_plan: after branches finish, let the LLM adjust the pending part of the plan."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_core.configuration import RunConfig, language_instruction
from research_core.llm.client import StructuredOutputError
from research_core.llm.prompts import render_prompt
from research_core.planning.question_shape import stand_alone
from research_core.planning.revision import apply_revision, keep_approved_branches, revision_is_empty, vet_revision
from research_core.schemas import LogEntry, PlanRevisionOutput
from research_core.services import Services
from research_core.task_records import RevisionTask


def revision_prompt(task: RevisionTask, config: RunConfig) -> tuple[str, str]:
    """The reviser's prompt: the plan with each branch's status and priority, and the answers just written."""
    branches = task.branches
    plan = "\n".join(
        f"- {b}: [{branches[b].status}] (priority {branches[b].priority:.2f}) {branches[b].question_text}"
        for b in task.branch_order
    )
    finished = "\n".join(
        f"- {b}: {branches[b].question_text}\n  {(branches[b].synthesis or '')[:600]}" for b in task.finished
    )
    return render_prompt(
        "revise_plan",
        question=task.question,
        plan=plan,
        finished=finished,
        language=language_instruction(config),
    )


def revise_plan(payload: RevisionTask | dict[str, Any], runtime: Runtime[Services]) -> dict:
    """Propose (step mode) or apply (auto mode) changes to pending branches, with reasons."""
    task = RevisionTask.model_validate(payload)
    config = runtime.context.config
    branches, order = task.branches, task.branch_order
    system, user = revision_prompt(task, config)
    try:
        out, costs = runtime.context.llm.structured(
            "revise_plan", PlanRevisionOutput, system, user, node="revise_plan", max_tokens=500
        )
    except StructuredOutputError as exc:
        entry = LogEntry(
            node="revise_plan",
            kind="fallback",
            message="Plan revision failed; the plan is unchanged.",
            reasoning=exc.user_message,
        )
        return {"costs": [c.model_dump() for c in exc.costs], "log": [entry.model_dump()]}
    changes, notes = vet_revision(out, branches, config)
    for item in changes["add"]:
        item["question_text"] = stand_alone(item["question_text"], task.question)
    if not config.step_mode:
        changes, kept = keep_approved_branches(changes, branches)
        notes += kept
    cost_update = [c.model_dump() for c in costs]
    log = [LogEntry(node="revise_plan", kind="revision", message=n).model_dump() for n in notes]
    if revision_is_empty(changes):
        log.append(
            LogEntry(
                node="revise_plan", kind="revision", message="No change to the plan.", reasoning=out.reasoning
            ).model_dump()
        )
        return {"costs": cost_update, "log": log}
    if config.step_mode:
        log.append(
            LogEntry(
                node="revise_plan", kind="revision", message=f"Proposed revision: {changes}", reasoning=out.reasoning
            ).model_dump()
        )
        return {"costs": cost_update, "log": log, "revision_pending": changes}
    updates, new_order = apply_revision(changes, branches, order, config)
    log.append(
        LogEntry(
            node="revise_plan", kind="revision", message=f"Applied revision: {changes}", reasoning=out.reasoning
        ).model_dump()
    )
    return {
        "costs": cost_update,
        "log": log,
        "branches": updates,
        "branch_order": new_order,
        "revisions_done": task.revisions_done + 1,
    }
