"""The Run page's gates in step mode: after a branch, a proposed plan revision, a drill-down.

Each view reads the open gate's payload model (`research_core.gates`), builds the typed answer and
turns what the user did (a table's edits, a button) into the gate's typed answer once, with the gate's
own parser, before it hands it to `send`, which the page wires to the runner: a refused answer shows
the gate's one-line message here, and nothing is sent. The typed answer is what reaches the gate. The
rules that turn an edited table into an answer (`step_edits`, `drill_children_answer`) are pure
functions over the table's rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from research_core.gates import (
    DrillDownPayload,
    DrillReject,
    GateAnswer,
    GateAnswerError,
    GatePayload,
    RevisionPayload,
    RevisionReject,
    StepAnswer,
    StepPayload,
    branch_statuses,
    parse_answer,
)
from research_core.runs.rows import BranchRow
from research_core.runs.snapshot import RunSnapshot
from research_core.text.citations import markers_to_numbered
from ui import run_view, widgets
from ui.widgets import esc

Send = Callable[[GateAnswer], None]


def gate_answer(
    payload: GatePayload, answer: GateAnswer | str | dict[str, Any], branches: Sequence[BranchRow]
) -> tuple[GateAnswer | None, str | None]:
    """The typed answer the gate will receive (`branches` are the run's), or None and the gate's refusal."""
    try:
        return parse_answer(payload, answer, branches=branch_statuses(branches)), None
    except GateAnswerError as exc:
        return None, exc.user_message


def table_number(value: Any) -> Any:
    """A table cell's number, with an emptied cell (None or NaN) as None for the gate to refuse as empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


# ---- after a branch ------------------------------------------------------------------------------


def step_rows(pending_branches: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The step gate's editor table: each pending branch's id, text and priority, none skipped."""
    return pd.DataFrame(
        [
            {
                "id": r["id"],
                "question_text": r.get("question_text") or "",
                "priority": float(r.get("priority") or 0),
                "skip": False,
            }
            for r in pending_branches
        ]
    )


def step_edits(before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The step gate's edits from the table before and after the user's changes.

    A branch appears only when something changed: its (stripped) text, its priority (by more than
    1e-9; an emptied cell is sent as None) or a tick in *skip*. The gate's parser judges the values.
    """
    edits: list[dict[str, Any]] = []
    for old, new in zip(before, after, strict=True):
        change: dict[str, Any] = {"id": old["id"]}
        text = str(new.get("question_text") or "").strip()
        if text != old["question_text"]:
            change["question_text"] = text
        priority = table_number(new.get("priority"))
        if priority is None or not isinstance(priority, int | float) or abs(priority - old["priority"]) > 1e-9:
            change["priority"] = priority
        if bool(new.get("skip")):
            change["skip"] = True
        if len(change) > 1:
            edits.append(change)
    return edits


def completed_branch_cards(snap: RunSnapshot, completed: Sequence[Mapping[str, Any]]) -> None:
    """The branches that just finished: number, question, iterations, confidence and cited answer."""
    numbering = widgets.citation_numbering(snap.branches)
    numbers = widgets.branch_numbers(snap.branches)
    sources_by_id = {src.id: src for src in snap.sources}
    for c in completed:
        with st.container(border=True):
            st.markdown(f"**{esc(numbers.get(c['id'], c['id']))} · {esc(c.get('question_text'))}**")
            details = [widgets.plural(int(c.get("iteration_count") or 0), "iteration")]
            if c.get("confidence") is not None:
                details.append(f"confidence {float(c['confidence']):.2f}")
            st.caption(" · ".join(details))
            synthesis = c.get("synthesis") or ""
            st.markdown(widgets.clean_md(markers_to_numbered(synthesis, numbering)) or "_No synthesis._")
            cited = widgets.cited_sources_markdown(synthesis, sources_by_id, numbering)
            if cited:
                st.markdown(cited)


def step_gate(snap: RunSnapshot, payload: StepPayload, send: Send) -> None:
    """Show the branches that just finished; edit, skip or reprioritise the pending ones."""
    st.subheader("Paused after a branch")
    completed_branch_cards(snap, payload.completed)
    if payload.error:
        st.error(f"The last answer was refused: {esc(payload.error)}", icon=":material/error:")
    edits: list[dict[str, Any]] = []
    if payload.pending:
        st.markdown("**Pending branches** · edit the text or priority, or skip a branch")
        original = step_rows(payload.pending)
        gate_key = "_".join(c["id"] for c in payload.completed) or "gate"
        edited = st.data_editor(
            original,
            key=f"step_editor_{snap.run_id}_{gate_key}",
            hide_index=True,
            width="stretch",
            disabled=["id"],
            column_config={
                "id": st.column_config.TextColumn("id", width=90),
                "question_text": st.column_config.TextColumn("sub-question", width="large", max_chars=2000),
                "priority": st.column_config.NumberColumn(
                    "priority", min_value=0.0, max_value=1.0, step=0.05, format="%.2f", width=80
                ),
                "skip": st.column_config.CheckboxColumn("skip", width=60),
            },
        )
        edits = step_edits(original.to_dict("records"), edited.to_dict("records"))
    else:
        st.caption("No branches are pending; continuing writes the report.")
    answer, problem = gate_answer(payload, {"action": "continue", "edits": edits}, snap.branches)
    if problem:
        st.error(problem, icon=":material/error:")
    with st.container(horizontal=True, gap="small"):
        go_on = st.button(
            "Continue", type="primary", icon=":material/play_arrow:", key="step_continue", disabled=answer is None
        )
        stop = st.button(
            "Stop early and write the report",
            icon=":material/stop_circle:",
            key="step_stop",
            help="Skip the pending branches and synthesise from what was gathered so far.",
        )
    if go_on and answer is not None:
        send(answer)
    if stop:
        send(StepAnswer(action="stop"))


# ---- a proposed plan revision ----------------------------------------------------------------------


def revision_lines(changes: Mapping[str, Any], branches: Sequence[BranchRow]) -> list[str]:
    """The proposed plan change as Markdown list items: additions, drops and new priorities.

    Branches are named by their tree number and (shortened) question; every text is escaped.
    """
    by_id = {b.id: b for b in branches}
    numbers = widgets.branch_numbers(branches)

    def named(bid: str) -> str:
        branch = by_id.get(bid)
        if branch is None:
            return esc(bid)
        return f"{esc(numbers.get(bid, bid))} · {esc(widgets.shorten(branch.question_text, 110))}"

    lines = []
    for item in changes.get("add", []):
        if isinstance(item, dict):
            text = item.get("question_text") or item.get("question")
            line = f"- :green[add] {esc(text)} :gray[priority {float(item.get('priority') or 0.5):.2f}]"
            if item.get("rationale"):
                line += f"  \n  :gray[{esc(item['rationale'])}]"
        else:
            line = f"- :green[add] {esc(item)}"
        lines.append(line)
    for bid in changes.get("drop", []):
        lines.append(f"- :red[drop] {named(bid)}")
    for bid, priority in (changes.get("reprioritize") or {}).items():
        before = by_id.get(bid)
        was = f"{before.priority:.2f} → " if before is not None else ""
        lines.append(f"- :orange[priority] {named(bid)}: {was}{float(priority):.2f}")
    return lines


def revision_gate(snap: RunSnapshot, payload: RevisionPayload, send: Send) -> None:
    """The model proposes to change the pending part of the plan, with its reasons; accept or reject."""
    st.subheader("Proposed change to the plan")
    changes = payload.changes
    reasoning = changes.get("reasoning") or run_view.revision_reasoning(snap.log)
    if reasoning:
        st.markdown(f":material/psychology: **Why:** {esc(reasoning)}")
    else:
        st.caption("The model gave no reason for this change.")
    lines = revision_lines(changes, snap.branches)
    if lines:
        st.markdown("\n".join(lines))
    if payload.error:
        st.error(esc(payload.error), icon=":material/error:")
    answer, problem = gate_answer(payload, {"action": "accept", "changes": changes}, snap.branches)
    if problem:
        st.error(problem, icon=":material/error:")
    with st.container(horizontal=True, gap="small"):
        accept = st.button(
            "Accept", type="primary", key="revision_accept", icon=":material/check:", disabled=answer is None
        )
        reject = st.button("Reject", key="revision_reject", icon=":material/close:")
    if accept and answer is not None:
        send(answer)
    if reject:
        send(RevisionReject())


# ---- a drill-down ------------------------------------------------------------------------------------


def drill_proposals(payload: DrillDownPayload) -> list[dict[str, Any]]:
    """The drill-down gate's proposed children (anything but a dict is left out)."""
    return [p for p in payload.proposals if isinstance(p, dict)]


def drill_rows(proposals: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The drill-down editor's table: text, priority (0.5 when the model gave none), none removed."""
    return pd.DataFrame(
        [
            {
                "question_text": str(p.get("question_text") or ""),
                "priority": float(p.get("priority") if p.get("priority") is not None else 0.5),
                "remove": False,
            }
            for p in proposals
        ],
        columns=["question_text", "priority", "remove"],
    )


def drill_children_answer(
    proposals: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The children to send: the editor's rows as the user sees them, without those ticked *remove*.

    A text is normalised to single spaces; an emptied priority is sent as None (the gate's parser
    judges the values). A kept child carries the model's rationale along. An untouched table sends
    the proposals, with the priority the table shows for one the model gave none.
    """
    children: list[dict[str, Any]] = []
    for proposal, row in zip(proposals, rows, strict=True):
        if bool(row.get("remove")):
            continue
        text = " ".join(str(row.get("question_text") or "").split())
        child = {"question_text": text, "priority": table_number(row.get("priority"))}
        if proposal.get("rationale"):
            child["rationale"] = proposal["rationale"]
        children.append(child)
    return children


def drill_children(payload: DrillDownPayload, key: str) -> list[dict[str, Any]]:
    """The proposed children in an editor; returns the children to send."""
    proposals = drill_proposals(payload)
    original = drill_rows(proposals)
    edited = st.data_editor(
        original,
        key=key,
        hide_index=True,
        width="stretch",
        column_config={
            "question_text": st.column_config.TextColumn("narrower question", width="large", max_chars=500),
            "priority": st.column_config.NumberColumn(
                "priority", min_value=0.0, max_value=1.0, step=0.05, format="%.2f", width=80
            ),
            "remove": st.column_config.CheckboxColumn("remove", width=70),
        },
    )
    return drill_children_answer(proposals, edited.to_dict("records"))


def drill_gate(snap: RunSnapshot, payload: DrillDownPayload, send: Send) -> None:
    """A branch wants to dig deeper: show why, let the user edit its proposed children, approve or reject."""
    branch = payload.branch
    bid = branch.get("id")
    number = widgets.branch_numbers(snap.branches).get(bid, bid)
    st.subheader("Go deeper?")
    st.markdown(f"**{esc(number)} · {esc(branch.get('question_text'))}**")
    depth = branch.get("depth_assessment")
    reasoning = payload.reasoning or run_view.depth_reasoning(snap.log, bid)
    if depth or reasoning:
        verdict = f"The model judged the findings **{esc(depth)}**" if depth else "The model's assessment"
        st.markdown(f":material/psychology: {verdict}" + (f": {esc(reasoning)}" if reasoning else "."))
    st.markdown("**Proposed narrower questions** · edit the text or priority, or tick *remove* to leave one out")
    if payload.error:
        st.error(esc(payload.error), icon=":material/error:")
    children = drill_children(payload, key=f"drill_editor_{snap.run_id}_{bid}")
    answer, problem = None, None
    if not children:
        st.warning("Every question is removed. Keep at least one, or choose *Not needed*.", icon=":material/warning:")
    else:
        answer, problem = gate_answer(payload, {"action": "approve", "children": children}, snap.branches)
    if problem:
        st.error(problem, icon=":material/error:")
    with st.container(horizontal=True, gap="small"):
        approve = st.button(
            "Research these",
            type="primary",
            key="drill_approve",
            icon=":material/check:",
            disabled=answer is None,
        )
        reject = st.button("Not needed", key="drill_reject", icon=":material/close:")
    if approve and answer is not None:
        send(answer)
    if reject:
        send(DrillReject())
