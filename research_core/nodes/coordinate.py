"""coordinate: after every round, pause at the step gate (step mode) and schedule the next steps."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from research_core.budget import reserve_synthesis_cost
from research_core.configuration import RunConfig
from research_core.costs import total_cost
from research_core.plan import PlanError, _as_priority
from research_core.scheduling import schedule_steps
from research_core.schemas import LogEntry
from research_core.services import Services
from research_core.state import ResearchState


def step_payload(state: ResearchState, done: list[str], error: str | None) -> dict[str, Any]:
    """What the step gate shows: the branches just finished and the ones still pending."""
    branches = state["branches"]
    return {
        "kind": "step",
        "question": state["question"],
        "completed": [
            {k: branches[b].get(k) for k in ("id", "question_text", "synthesis", "confidence", "iteration_count")}
            for b in done
        ],
        "pending": [
            {k: branches[b].get(k) for k in ("id", "question_text", "priority", "status")}
            for b in state["branch_order"]
            if branches[b].get("status") == "pending"
        ],
        "error": error,
        "answers": "continue | stop | {'action': 'continue', 'edits': [{'id', 'question_text', 'priority', 'skip'}]}",
    }


def parse_step_answer(answer: Any, branches: dict[str, dict]) -> tuple[str, dict[str, dict]]:
    """Interpret a step-gate answer: ('continue' | 'stop', updates for pending branches)."""
    if isinstance(answer, str):
        answer = {"action": answer.strip().lower()}
    if not isinstance(answer, dict):
        raise PlanError("Answer 'continue', 'stop', or an object with 'action' and 'edits'.")
    action = answer.get("action", "continue")
    if action not in ("continue", "stop"):
        raise PlanError(f"Unknown action {action!r}: use 'continue' or 'stop'.")
    updates: dict[str, dict] = {}
    edits = answer.get("edits") or []
    if not isinstance(edits, list):
        raise PlanError("'edits' must be a list of {id, question_text?, priority?, skip?}.")
    for edit in edits:
        if not isinstance(edit, dict) or edit.get("id") not in branches:
            raise PlanError(f"Edit {edit!r} does not name a branch of this run.")
        bid = edit["id"]
        if branches[bid].get("status") != "pending":
            raise PlanError(f"{bid} is {branches[bid].get('status')}; only pending branches can be edited.")
        change: dict[str, Any] = {}
        if "question_text" in edit:
            text = edit["question_text"]
            if not isinstance(text, str) or not text.strip():
                raise PlanError(f"{bid}: the question text is empty.")
            change["question_text"] = text.strip()
        if "priority" in edit:
            change["priority"] = _as_priority(edit["priority"], bid)
        if edit.get("skip"):
            change["status"] = "skipped"
            change["stop_reason"] = "skipped by the user"
        updates[bid] = change
    return action, updates


def coordinate(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Step gate, cost cap and scheduling of the next round of branch steps."""
    config = RunConfig(**state["config"])
    branches = {b: dict(v) for b, v in state["branches"].items()}
    order = state["branch_order"]
    stop = bool(state.get("stop_requested"))
    updates: dict[str, dict] = {}
    log: list[dict] = []
    warnings: list[str] = []
    acknowledged = list(state.get("acknowledged") or [])

    if config.step_mode and not stop:
        done = [b for b in order if branches[b].get("status") == "completed" and b not in acknowledged]
        if done:
            error = None
            while True:
                answer = interrupt(step_payload(state, done, error))
                try:
                    action, edits = parse_step_answer(answer, branches)
                    break
                except PlanError as exc:
                    error = str(exc)
            acknowledged += done
            for bid, change in edits.items():
                updates[bid] = change
                branches[bid].update(change)
                log.append(
                    LogEntry(node="coordinate", branch=bid, message=f"Edited at step gate: {change}").model_dump()
                )
            if action == "stop":
                stop = True
                warnings.append("The run was stopped early by the user; the report uses what was gathered.")
                log.append(LogEntry(node="coordinate", message="The user stopped the run at a step gate.").model_dump())

    services = runtime.context
    spent = total_cost(state.get("costs", []))
    open_branches = sum(1 for b in branches.values() if b.get("status") not in ("completed", "skipped", "failed"))
    reservation = reserve_synthesis_cost(services.llm.price("work"), services.llm.price("synthesis")).total(
        open_branches
    )
    exhausted = spent > 0 and spent + reservation >= config.max_total_cost_usd
    if exhausted and not state.get("budget_exhausted_logged"):
        message = (
            f"Cost cap reached: ${spent:.4f} spent of ${config.max_total_cost_usd:.2f} "
            f"(${reservation:.4f} kept for synthesis). Research stopped; synthesis continues."
        )
        warnings.append(message)
        log.append(LogEntry(node="coordinate", kind="budget", message=message).model_dump())

    counts: dict[str, int] = {}
    for f in state.get("findings", []):
        counts[f["sub_question_id"]] = counts.get(f["sub_question_id"], 0) + 1
    plan = schedule_steps(branches, order, counts, config.parallel, stop_requested=stop, budget_exhausted=exhausted)
    for bid, change in plan.updates.items():
        updates.setdefault(bid, {}).update(change)
        branches[bid].update(change)
    for note in plan.notes:
        log.append(LogEntry(node="coordinate", message=note).model_dump())

    findings_by_branch: dict[str, list[dict]] = {}
    for f in state.get("findings", []):
        findings_by_branch.setdefault(f["sub_question_id"], []).append(f)
    sources_by_id = {s["id"]: s for s in state.get("sources", [])}
    tasks: list[dict] = []
    for bid in plan.synthesize:
        fs = findings_by_branch.get(bid, [])
        cited = {sid for f in fs for sid in f.get("source_ids", [])}
        tasks.append(
            {
                "node": "synthesize_branch",
                "payload": {
                    "question": state["question"],
                    "config": state["config"],
                    "branch": branches[bid],
                    "findings": fs,
                    "sources": [s for sid, s in sources_by_id.items() if sid in cited],
                },
            }
        )
    for bid in plan.research:
        tasks.append(
            {
                "node": "research_step",
                "payload": {
                    "question": state["question"],
                    "config": state["config"],
                    "branch": branches[bid],
                    "findings": findings_by_branch.get(bid, []),
                },
            }
        )
    update: dict[str, Any] = {
        "branches": updates,
        "next_tasks": tasks,
        "acknowledged": acknowledged,
        "stop_requested": stop,
        "log": log,
        "warnings": warnings,
    }
    if exhausted:
        update["budget_exhausted_logged"] = True
    return update
