"""A run's open gate on the terminal, and the answer to it read from an `--answer FILE.json`."""

from __future__ import annotations

import json
import sys
from typing import Any

from research_core.cli.output import resume_command
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot


def print_gate(runner: Runner, snap: RunSnapshot) -> None:
    """Print the run's open gate (plan review, step, drill-down, revision) and the commands that answer it."""
    pending = snap.pending or {}
    kind = pending.get("kind")
    if kind == "review":
        print(f"Plan for: {pending['question']}  (strategy: {pending['strategy']})")
        est = pending.get("estimated_iterations", {})
        unfunded = set(pending.get("unfunded") or [])
        for sq in pending["sub_questions"]:
            indent = "  " * (sq.get("depth") or 0)
            budget = "unfunded" if sq["id"] in unfunded else f"{est.get(sq['id'], '?')} it."
            print(f"  {indent}{sq['id']}  [{sq['priority']:.2f}]  {sq['question_text']}  ({budget})")
        low, high = pending.get("estimated_cost_usd", [0, 0])
        print(f"Estimated cost: ${low:.4f} - ${high:.4f}")
        if pending.get("budget_note"):
            print(f"Budget: {pending['budget_note']}")
        _print_refusal(pending)
        print(f"\nRun {snap.run_id} is waiting for review. Continue with:")
        print(f"  {resume_command(runner, snap.run_id, 'approve')}")
        print(f"  {resume_command(runner, snap.run_id, 'edited_plan.json')}")
        print(f"  {resume_command(runner, snap.run_id, 'cancel')}")
    elif kind == "step":
        for c in pending.get("completed", []):
            print(f"Completed {c['id']}: {c['question_text']}  (confidence {c.get('confidence')})")
        for p in pending.get("pending", []):
            print(f"  pending {p['id']} [{p['priority']:.2f}] {p['question_text']}")
        _print_refusal(pending)
        print(f"\nRun {snap.run_id} paused after a branch. Continue with:")
        print(f"  {resume_command(runner, snap.run_id, 'continue|stop|edits.json')}")
    elif kind == "drill_down":
        _print_drill_gate(runner, snap, pending)
    elif kind == "revision":
        _print_revision_gate(runner, snap, pending)


def _print_refusal(pending: dict[str, Any]) -> None:
    if pending.get("error"):
        print(f"Refused: {pending['error']}", file=sys.stderr)


def _print_drill_gate(runner: Runner, snap: RunSnapshot, pending: dict[str, Any]) -> None:
    branch = pending.get("branch") or {}
    print(f"Go deeper into {branch.get('id')}: {branch.get('question_text')}  [{_priority(branch.get('priority'))}]")
    print(f"  Depth of its findings: {branch.get('depth_assessment') or 'not assessed'}")
    if pending.get("reasoning"):
        print(f"  Why: {pending['reasoning']}")
    print("  Proposed sub-questions:")
    for n, child in enumerate(pending.get("proposals") or [], start=1):
        print(f"    {n}. [{_priority(child.get('priority'))}] {child.get('question_text')}")
        if child.get("rationale"):
            print(f"       {child['rationale']}")
    children = [
        {"question_text": c.get("question_text"), "priority": c.get("priority")} for c in pending.get("proposals") or []
    ]
    print(f"As JSON, to edit for --answer FILE.json: {json.dumps(children, ensure_ascii=False)}")
    _print_refusal(pending)
    print(f"\nRun {snap.run_id} is waiting for a drill-down decision. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'approve')}")
    print(f"  {resume_command(runner, snap.run_id, 'reject')}")
    print(f"  {resume_command(runner, snap.run_id, 'children.json')}   (a JSON list of {{question_text, priority}})")


def _print_revision_gate(runner: Runner, snap: RunSnapshot, pending: dict[str, Any]) -> None:
    changes = pending.get("changes") or {}
    texts = {b["id"]: b.get("question_text", "") for b in snap.branches}
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
    _print_refusal(pending)
    print(f"\nRun {snap.run_id} is waiting for a decision on the plan revision. Continue with:")
    print(f"  {resume_command(runner, snap.run_id, 'accept')}")
    print(f"  {resume_command(runner, snap.run_id, 'reject')}")
    print(
        f"  {resume_command(runner, snap.run_id, 'changes.json')}   (the part of {{add, drop, reprioritize}} to keep)"
    )


def _revision_changes(changes: dict[str, Any], pending: dict[str, Any]) -> dict[str, Any]:
    """Match the questions to add (text or object) to the proposed ones, which the engine compares exactly."""
    proposed = (pending.get("changes") or {}).get("add", [])
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


def answer_from_file(data: Any, pending: dict[str, Any]) -> Any:
    """Turn the content of an --answer FILE.json into the answer object of the open gate.

    A file holding a full answer (with "action") is passed as is; otherwise the shape of the
    content and the open gate decide: an edited plan approves the plan, a list of edits
    continues a step gate, a list of children approves a drill-down, changes accept a revision
    (questions to add may be given by their text alone).
    """
    kind = pending.get("kind")
    if isinstance(data, dict) and "action" in data:
        if kind == "revision" and isinstance(data.get("changes"), dict):
            return {**data, "changes": _revision_changes(data["changes"], pending)}
        return data
    if kind == "drill_down" or (kind is None and isinstance(data, dict) and "children" in data):
        children = data.get("children") if isinstance(data, dict) else data
        return {"action": "approve", "children": children}
    if kind == "revision" or (kind is None and isinstance(data, dict) and {"add", "drop", "reprioritize"} & set(data)):
        return {"action": "accept", "changes": _revision_changes(data, pending) if isinstance(data, dict) else data}
    if kind == "step" or (kind is None and isinstance(data, dict) and "edits" in data):
        edits = data.get("edits") if isinstance(data, dict) else data
        return {"action": "continue", "edits": edits}
    if isinstance(data, dict) and "sub_questions" in data:
        return {"action": "approve", **data}
    return data
