"""The Run page's gates in step mode: after a branch, a proposed plan revision, a drill-down.

Each view draws the open gate's payload and hands the user's answer to `send`, which the page
wires to the runner. The rules that turn an edited table into an answer (`step_edits`,
`drill_children_answer`) are pure functions over the table's rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from research_core.runs.snapshot import RunSnapshot
from research_core.text.citations import markers_to_numbered
from ui import run_view, widgets
from ui.widgets import esc

Send = Callable[[object], None]


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


def step_edits(
    before: Sequence[Mapping[str, Any]], after: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], str | None]:
    """The step gate's edits from the table before and after the user's changes, and the last problem.

    A branch appears in the edits only when something changed: a new (stripped) text, a priority
    that moved by more than 1e-9, or a tick in *skip*. An empty text or a priority outside 0–1 is a
    problem (the last one found is returned) and that value is not sent.
    """
    edits: list[dict[str, Any]] = []
    problem = None
    for old, new in zip(before, after, strict=True):
        change: dict[str, Any] = {"id": old["id"]}
        text = str(new.get("question_text") or "").strip()
        if not text:
            problem = f"{old['id']}: the question text is empty."
        elif text != old["question_text"]:
            change["question_text"] = text
        priority = new.get("priority")
        if priority is None or pd.isna(priority) or not 0 <= float(priority) <= 1:
            problem = f"{old['id']}: the priority must be a number from 0 to 1."
        elif abs(float(priority) - old["priority"]) > 1e-9:
            change["priority"] = float(priority)
        if bool(new.get("skip")):
            change["skip"] = True
        if len(change) > 1:
            edits.append(change)
    return edits, problem


def completed_branch_cards(snap: RunSnapshot, completed: Sequence[Mapping[str, Any]]) -> None:
    """The branches that just finished: number, question, iterations, confidence and cited answer."""
    numbering = widgets.citation_numbering(snap.branches)
    numbers = widgets.branch_numbers(snap.branches)
    sources_by_id = {src["id"]: src for src in snap.sources if src.get("id")}
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


def step_gate(snap: RunSnapshot, pending: Mapping[str, Any], send: Send) -> None:
    """Show the branches that just finished; edit, skip or reprioritise the pending ones."""
    st.subheader("Paused after a branch")
    completed_branch_cards(snap, pending.get("completed", []))
    if pending.get("error"):
        st.error(f"The last answer was refused: {esc(pending['error'])}", icon=":material/error:")
    rows = pending.get("pending", [])
    edits: list[dict[str, Any]] = []
    problem = None
    if rows:
        st.markdown("**Pending branches** · edit the text or priority, or skip a branch")
        original = step_rows(rows)
        gate_key = "_".join(c["id"] for c in pending.get("completed", [])) or "gate"
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
        edits, problem = step_edits(original.to_dict("records"), edited.to_dict("records"))
        if problem:
            st.error(problem, icon=":material/error:")
    else:
        st.caption("No branches are pending; continuing writes the report.")
    with st.container(horizontal=True, gap="small"):
        go_on = st.button(
            "Continue", type="primary", icon=":material/play_arrow:", key="step_continue", disabled=bool(problem)
        )
        stop = st.button(
            "Stop early and write the report",
            icon=":material/stop_circle:",
            key="step_stop",
            help="Skip the pending branches and synthesise from what was gathered so far.",
        )
    if go_on:
        send({"action": "continue", "edits": edits} if edits else "continue")
    if stop:
        send("stop")


# ---- a proposed plan revision ----------------------------------------------------------------------


def revision_lines(changes: Mapping[str, Any], branches: Sequence[Mapping[str, Any]]) -> list[str]:
    """The proposed plan change as Markdown list items: additions, drops and new priorities.

    Branches are named by their tree number and (shortened) question; every text is escaped.
    """
    by_id = {b["id"]: b for b in branches}
    numbers = widgets.branch_numbers(branches)

    def named(bid: str) -> str:
        branch = by_id.get(bid)
        if branch is None:
            return esc(bid)
        return f"{esc(numbers.get(bid, bid))} · {esc(widgets.shorten(branch.get('question_text') or '', 110))}"

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
        before = by_id.get(bid, {}).get("priority")
        was = f"{float(before):.2f} → " if before is not None else ""
        lines.append(f"- :orange[priority] {named(bid)}: {was}{float(priority):.2f}")
    return lines


def revision_gate(snap: RunSnapshot, pending: Mapping[str, Any], send: Send) -> None:
    """The model proposes to change the pending part of the plan, with its reasons; accept or reject."""
    st.subheader("Proposed change to the plan")
    changes = pending.get("changes") or {}
    reasoning = changes.get("reasoning") or run_view.revision_reasoning(snap.log)
    if reasoning:
        st.markdown(f":material/psychology: **Why:** {esc(reasoning)}")
    else:
        st.caption("The model gave no reason for this change.")
    lines = revision_lines(changes, snap.branches)
    if lines:
        st.markdown("\n".join(lines))
    if pending.get("error"):
        st.error(esc(pending["error"]), icon=":material/error:")
    with st.container(horizontal=True, gap="small"):
        if st.button("Accept", type="primary", key="revision_accept", icon=":material/check:"):
            send("accept")
        if st.button("Reject", key="revision_reject", icon=":material/close:"):
            send("reject")


# ---- a drill-down ------------------------------------------------------------------------------------


def drill_proposals(pending: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The drill-down gate's proposed children (anything but a dict is left out)."""
    return [p for p in pending.get("proposals") or [] if isinstance(p, dict)]


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
    proposals: Sequence[Mapping[str, Any]],
    before: Sequence[Mapping[str, Any]],
    after: Sequence[Mapping[str, Any]],
) -> tuple[list[dict[str, Any]] | None, bool, str | None]:
    """The children to send from the edited table: (children or None if unchanged, any kept, problem).

    A ticked *remove* leaves a child out; a text is normalised to single spaces; an empty text or
    a priority outside 0–1 is a problem (the last one found) and that child is not sent. A kept
    child carries the model's rationale along. Nothing removed or edited gives None: approve as proposed.
    """
    children: list[dict[str, Any]] = []
    changed = False
    kept = False
    problem = None
    for n, (proposal, old, new) in enumerate(zip(proposals, before, after, strict=True), start=1):
        if bool(new.get("remove")):
            changed = True
            continue
        kept = True
        text = " ".join(str(new.get("question_text") or "").split())
        priority = new.get("priority")
        if not text:
            problem = f"Question {n}: the text is empty. Type a question or tick *remove*."
            continue
        if priority is None or pd.isna(priority) or not 0 <= float(priority) <= 1:
            problem = f"Question {n}: the priority must be a number from 0 to 1."
            continue
        changed = changed or text != old["question_text"] or abs(float(priority) - old["priority"]) > 1e-9
        child = {"question_text": text, "priority": float(priority)}
        if proposal.get("rationale"):
            child["rationale"] = proposal["rationale"]
        children.append(child)
    return (children if changed else None), kept, problem


def drill_children(pending: Mapping[str, Any], key: str) -> tuple[list[dict[str, Any]] | None, bool, str | None]:
    """The proposed children in an editor: (children to send or None if unchanged, any kept, problem)."""
    proposals = drill_proposals(pending)
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
    return drill_children_answer(proposals, original.to_dict("records"), edited.to_dict("records"))


def drill_gate(snap: RunSnapshot, pending: Mapping[str, Any], send: Send) -> None:
    """A branch wants to dig deeper: show why, let the user edit its proposed children, approve or reject."""
    branch = pending.get("branch") or {}
    bid = branch.get("id")
    number = widgets.branch_numbers(snap.branches).get(bid, bid)
    st.subheader("Go deeper?")
    st.markdown(f"**{esc(number)} · {esc(branch.get('question_text'))}**")
    depth = branch.get("depth_assessment")
    reasoning = pending.get("reasoning") or run_view.depth_reasoning(snap.log, bid)
    if depth or reasoning:
        verdict = f"The model judged the findings **{esc(depth)}**" if depth else "The model's assessment"
        st.markdown(f":material/psychology: {verdict}" + (f": {esc(reasoning)}" if reasoning else "."))
    st.markdown("**Proposed narrower questions** · edit the text or priority, or tick *remove* to leave one out")
    if pending.get("error"):
        st.error(esc(pending["error"]), icon=":material/error:")
    children, kept, problem = drill_children(pending, key=f"drill_editor_{snap.run_id}_{bid}")
    if problem:
        st.error(problem, icon=":material/error:")
    elif not kept:
        st.warning("Every question is removed. Keep at least one, or choose *Not needed*.", icon=":material/warning:")
    with st.container(horizontal=True, gap="small"):
        approve = st.button(
            "Research these",
            type="primary",
            key="drill_approve",
            icon=":material/check:",
            disabled=bool(problem) or not kept,
        )
        reject = st.button("Not needed", key="drill_reject", icon=":material/close:")
    if approve:
        send({"action": "approve", "children": children} if children is not None else "approve")
    if reject:
        send("reject")
