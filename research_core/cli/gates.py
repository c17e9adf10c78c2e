"""A run's open gate on the terminal, and the typed answer to it read from `--answer` (a word, JSON or a FILE.json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from research_core.cli.config import read_json
from research_core.cli.errors import CliError
from research_core.cli.output import resume_command
from research_core.configuration import RunConfig
from research_core.gates import (
    DrillDownPayload,
    GateAnswer,
    GateAnswerError,
    GatePayload,
    ReviewPayload,
    RevisionPayload,
    StepPayload,
    branch_statuses,
    parse_answer,
    read_payload,
)
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot


def print_gate(runner: Runner, snap: RunSnapshot) -> None:
    """Print the run's open gate (plan review, step, drill-down, revision) and the commands that answer it."""
    payload = read_payload(snap.pending)
    if isinstance(payload, ReviewPayload):
        _print_review_gate(runner, snap, payload)
    elif isinstance(payload, StepPayload):
        _print_step_gate(runner, snap, payload)
    elif isinstance(payload, DrillDownPayload):
        _print_drill_gate(runner, snap, payload)
    elif isinstance(payload, RevisionPayload):
        _print_revision_gate(runner, snap, payload)


def _print_review_gate(runner: Runner, snap: RunSnapshot, payload: ReviewPayload) -> None:
    print(f"Plan for: {payload.question}  (strategy: {payload.strategy})")
    est = payload.estimated_iterations
    unfunded = set(payload.unfunded)
    for sq in payload.sub_questions:
        indent = "  " * (sq.get("depth") or 0)
        budget = "unfunded" if sq["id"] in unfunded else f"{est.get(sq['id'], '?')} it."
        print(f"  {indent}{sq['id']}  [{sq['priority']:.2f}]  {sq['question_text']}  ({budget})")
    low, high = payload.estimated_cost_usd
    print(f"Estimated cost: ${low:.4f} - ${high:.4f}")
    if payload.budget_note:
        print(f"Budget: {payload.budget_note}")
    _print_refusal(payload)
    print(f"\nRun {snap.run_id} is waiting for review. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'approve')}")
    print(f"  {resume_command(runner, snap.run_id, 'edited_plan.json')}")
    print(f"  {resume_command(runner, snap.run_id, 'cancel')}")


def _print_step_gate(runner: Runner, snap: RunSnapshot, payload: StepPayload) -> None:
    for c in payload.completed:
        print(f"Completed {c['id']}: {c['question_text']}  (confidence {c.get('confidence')})")
    for p in payload.pending:
        print(f"  pending {p['id']} [{p['priority']:.2f}] {p['question_text']}")
    _print_refusal(payload)
    print(f"\nRun {snap.run_id} paused after a branch. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'continue|stop|edits.json')}")


def _print_refusal(payload: GatePayload) -> None:
    if payload.error:
        print(f"Refused: {payload.error}", file=sys.stderr)


def _print_drill_gate(runner: Runner, snap: RunSnapshot, payload: DrillDownPayload) -> None:
    branch = payload.branch
    print(f"Go deeper into {branch.get('id')}: {branch.get('question_text')}  [{_priority(branch.get('priority'))}]")
    print(f"  Depth of its findings: {branch.get('depth_assessment') or 'not assessed'}")
    if payload.reasoning:
        print(f"  Why: {payload.reasoning}")
    print("  Proposed sub-questions:")
    proposals = [p for p in payload.proposals if isinstance(p, dict)]
    for n, child in enumerate(proposals, start=1):
        print(f"    {n}. [{_priority(child.get('priority'))}] {child.get('question_text')}")
        if child.get("rationale"):
            print(f"       {child['rationale']}")
    children = [{"question_text": c.get("question_text"), "priority": c.get("priority")} for c in proposals]
    print(f"As JSON, to edit for --answer FILE.json: {json.dumps(children, ensure_ascii=False)}")
    _print_refusal(payload)
    print(f"\nRun {snap.run_id} is waiting for a drill-down decision. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'approve')}")
    print(f"  {resume_command(runner, snap.run_id, 'reject')}")
    print(f"  {resume_command(runner, snap.run_id, 'children.json')}   (a JSON list of {{question_text, priority}})")


def _print_revision_gate(runner: Runner, snap: RunSnapshot, payload: RevisionPayload) -> None:
    changes = payload.changes
    texts = {b.id: b.question_text for b in snap.branches}
    print("Proposed change to the pending part of the plan:")
    for item in changes.get("add", []):
        print(f"  add   [{_priority(item.get('priority'))}] {item.get('question_text')}")
        if item.get("rationale"):
            print(f"        {item['rationale']}")
    for bid in changes.get("drop", []):
        print(f"  drop  {bid}: {texts.get(bid, '')}")
    for bid, priority in (changes.get("reprioritize") or {}).items():
        print(f"  priority {bid} -> {_priority(priority)}: {texts.get(bid, '')}")
    if changes.get("reasoning"):
        print(f"Reason: {changes['reasoning']}")
    print(f"As JSON, to edit for --answer FILE.json: {_revision_as_json(changes)}")
    _print_refusal(payload)
    print(f"\nRun {snap.run_id} is waiting for a decision on the plan revision. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'accept')}")
    print(f"  {resume_command(runner, snap.run_id, 'reject')}")
    print(
        f"  {resume_command(runner, snap.run_id, 'changes.json')}   (the part of {{add, drop, reprioritize}} to keep)"
    )


def _revision_changes(changes: dict[str, Any], payload: GatePayload | None) -> dict[str, Any]:
    """Match the questions to add (text or object) to the proposed ones, which the engine compares exactly."""
    proposed = payload.changes.get("add", []) if isinstance(payload, RevisionPayload) else []
    by_text = {" ".join(str(a.get("question_text", "")).split()).lower(): a for a in proposed if isinstance(a, dict)}
    add = []
    for item in changes.get("add", []) or []:
        text = item.get("question_text") if isinstance(item, dict) else item
        add.append(by_text.get(" ".join(str(text).split()).lower(), item))
    return {**changes, "add": add}


def _revision_as_json(changes: dict[str, Any]) -> str:
    return json.dumps(
        {
            "add": [a.get("question_text") for a in changes.get("add", [])],
            "drop": list(changes.get("drop", [])),
            "reprioritize": dict(changes.get("reprioritize") or {}),
        },
        ensure_ascii=False,
    )


def _priority(value: Any) -> str:
    try:
        return f"{float(value):.2f}"
    except (TypeError, ValueError):
        return "?"


def _object_keys(data: dict[str, Any], allowed: set[str], kind: str, forms: str) -> None:
    """Refuse a JSON object with a key the gate `kind` does not read, naming the forms it takes."""
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise CliError(f"--answer: a {kind} gate does not read {', '.join(map(repr, unknown))}; give {forms}.")


def _review_json(data: Any, payload: GatePayload) -> Any:
    """Plan review: an edited plan ({sub_questions, ...}, as `decompose` writes it, or {plan}) approves it."""
    if isinstance(data, dict) and "action" not in data:
        if "plan" not in data and "sub_questions" not in data:
            raise CliError("--answer: a plan review takes an edited plan ({sub_questions: [...]}) or {action, plan}.")
        return {"action": "approve", **data}
    return data


def _step_json(data: Any, payload: GatePayload) -> Any:
    """Step gate: a list of edits, or {edits} or {updates}, continues the run."""
    if isinstance(data, list):
        return {"action": "continue", "edits": data}
    if isinstance(data, dict):
        forms = "a list of edits, {action?, edits} or {action?, updates}"
        _object_keys(data, {"action", "edits", "updates"}, "step", forms)
        return {"action": "continue", **data}
    return data


def _revision_json(data: Any, payload: GatePayload) -> Any:
    """Plan revision: the part of {add, drop, reprioritize} to keep (questions to add may be given by text)."""
    if not isinstance(data, dict):
        return data
    if "action" in data or "changes" in data:
        _object_keys(data, {"action", "changes"}, "revision", "{add, drop, reprioritize} or {action?, changes}")
        data = {"action": "accept", **data}
        if isinstance(data.get("changes"), dict):
            return {**data, "changes": _revision_changes(data["changes"], payload)}
        return data
    _object_keys(data, {"add", "drop", "reprioritize", "reasoning"}, "revision", "{add, drop, reprioritize}")
    return {"action": "accept", "changes": _revision_changes(data, payload)}


def _drill_json(data: Any, payload: GatePayload) -> Any:
    """Drill-down: a list of children, or {children}, approves the drill-down with them."""
    if isinstance(data, list):
        return {"action": "approve", "children": data}
    if isinstance(data, dict):
        _object_keys(data, {"action", "children"}, "drill-down", "a list of children or {action?, children}")
        return {"action": "approve", **data} if "action" not in data else data
    return data


# How `--answer` JSON reads, by the kind of the open gate (never guessed from the content).
ANSWER_JSON = {"review": _review_json, "step": _step_json, "revision": _revision_json, "drill_down": _drill_json}


def answer_from_file(data: Any, payload: GatePayload) -> Any:
    """Turn JSON given to --answer (a FILE.json's content, or inline) into the answer object of the open gate.

    The gate's kind decides how the JSON reads: a full answer (with "action") or the typed answer
    without its action (its plan, updates, changes or children) stands for itself; an edited plan
    approves the plan, a list of edits continues a step gate, a list of children approves a
    drill-down, changes accept a revision. A key the gate does not read is refused (CliError).
    """
    return ANSWER_JSON[payload.kind](data, payload)


def _answer_content(text: str) -> Any:
    """What `--answer` holds: inline JSON (starting with { or [), a FILE.json's content, or the text itself."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise CliError(f"--answer: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if Path(text).suffix.lower() == ".json":
        return read_json(Path(text))
    return text


def read_answer(text: str, snap: RunSnapshot) -> GateAnswer | None:
    """The typed answer to the run's open gate from `--answer TEXT` (a word, inline JSON or a FILE.json).

    The words and JSON become the gate's typed answer here, once, by the open gate's kind, and its
    parser checks it before anything is sent: a refused answer is a CliError (one line, exit code 2)
    and the gate stays open. Without an open gate there is nothing to answer: None (resuming
    continues the run).
    """
    payload = read_payload(snap.pending)
    content = _answer_content(text)
    if payload is None:
        return None
    if not isinstance(content, str):
        content = answer_from_file(content, payload)
    try:
        return parse_answer(payload, content, branches=branch_statuses(snap.branches), config=RunConfig(**snap.config))
    except GateAnswerError as exc:
        raise CliError(f"Refused: {exc.user_message} The run still waits for an answer.") from None
