"""Run: watch the research tree grow, answer step gates, resume a failed run."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from research_core.citations import markers_to_numbered
from research_core.runs.errors import RunError
from research_core.runs.snapshot import RunSnapshot
from ui import resume, run_view, services, state, widgets
from ui.widgets import esc

state.require_shell()

POLL_SECONDS = 1.0

st.title("Run")

run_id = state.current_run_id()
if not run_id:
    st.info("No run selected. Start one on New research, or open one from History.", icon=":material/info:")
    with st.container(horizontal=True):
        st.page_link(state.NEW_RESEARCH, label="New research", icon=":material/edit_note:")
        st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()

runner = services.get_runner()
try:
    snap = run_view.shown_snapshot(runner.snapshot(run_id))
except RunError as exc:
    st.info(f"{exc} Pick a run on the History page.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()
if st.query_params.get("run") != run_id:
    st.query_params["run"] = run_id


def is_live(s: RunSnapshot) -> bool:
    """True while the run is being driven (here or by another process)."""
    return services.run_is_active(s.run_id) or s.status == "running"


def send(answer: object) -> None:
    """Answer the open gate on the runner's thread and redraw."""
    try:
        runner.resume_background(run_id, answer)
    except RunError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    st.rerun()


# ---- header -------------------------------------------------------------------------------------

st.markdown(f"### {esc(snap.question)}")
with st.container(horizontal=True, gap="small", vertical_alignment="center"):
    widgets.status_badge(snap.status)
    if snap.mode:
        st.badge(snap.mode, color="gray", icon=":material/account_tree:")
    st.badge(
        "step by step" if snap.config.get("step_mode") else "automatic",
        color="gray",
        icon=":material/step:" if snap.config.get("step_mode") else ":material/fast_forward:",
    )
    st.caption(f"Run `{run_id}` · started {widgets.format_time(snap.created_at)} UTC")


# ---- gates and terminal states ------------------------------------------------------------------


def step_gate(s: RunSnapshot, pending: dict) -> None:
    """Show the branches that just finished; edit, skip or reprioritise the pending ones."""
    numbering = widgets.citation_numbering(s.branches)
    numbers = widgets.branch_numbers(s.branches)
    sources_by_id = {src["id"]: src for src in s.sources if src.get("id")}
    st.subheader("Paused after a branch")
    for c in pending.get("completed", []):
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
    if pending.get("error"):
        st.error(f"The last answer was refused: {esc(pending['error'])}", icon=":material/error:")
    rows = pending.get("pending", [])
    edits: list[dict] = []
    problem = None
    if rows:
        st.markdown("**Pending branches** · edit the text or priority, or skip a branch")
        original = pd.DataFrame(
            [
                {
                    "id": r["id"],
                    "question_text": r.get("question_text") or "",
                    "priority": float(r.get("priority") or 0),
                    "skip": False,
                }
                for r in rows
            ]
        )
        gate_key = "_".join(c["id"] for c in pending.get("completed", [])) or "gate"
        edited = st.data_editor(
            original,
            key=f"step_editor_{s.run_id}_{gate_key}",
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
        for before, after in zip(original.to_dict("records"), edited.to_dict("records"), strict=True):
            change: dict = {"id": before["id"]}
            text = str(after.get("question_text") or "").strip()
            if not text:
                problem = f"{before['id']}: the question text is empty."
            elif text != before["question_text"]:
                change["question_text"] = text
            priority = after.get("priority")
            if priority is None or pd.isna(priority) or not 0 <= float(priority) <= 1:
                problem = f"{before['id']}: the priority must be a number from 0 to 1."
            elif abs(float(priority) - before["priority"]) > 1e-9:
                change["priority"] = float(priority)
            if bool(after.get("skip")):
                change["skip"] = True
            if len(change) > 1:
                edits.append(change)
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


def revision_gate(s: RunSnapshot, pending: dict) -> None:
    """The model proposes to change the pending part of the plan, with its reasons; accept or reject."""
    st.subheader("Proposed change to the plan")
    changes = pending.get("changes") or {}
    by_id = {b["id"]: b for b in s.branches}
    numbers = widgets.branch_numbers(s.branches)

    def named(bid: str) -> str:
        branch = by_id.get(bid)
        if branch is None:
            return esc(bid)
        return f"{esc(numbers.get(bid, bid))} · {esc(widgets.shorten(branch.get('question_text') or '', 110))}"

    reasoning = changes.get("reasoning") or run_view.revision_reasoning(s.log)
    if reasoning:
        st.markdown(f":material/psychology: **Why:** {esc(reasoning)}")
    else:
        st.caption("The model gave no reason for this change.")
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
    if lines:
        st.markdown("\n".join(lines))
    if pending.get("error"):
        st.error(esc(pending["error"]), icon=":material/error:")
    with st.container(horizontal=True, gap="small"):
        if st.button("Accept", type="primary", key="revision_accept", icon=":material/check:"):
            send("accept")
        if st.button("Reject", key="revision_reject", icon=":material/close:"):
            send("reject")


def drill_children(pending: dict, key: str) -> tuple[list[dict] | None, bool, str | None]:
    """The proposed children in an editor: (children to send or None if unchanged, any kept, problem)."""
    proposals = [p for p in pending.get("proposals") or [] if isinstance(p, dict)]
    original = pd.DataFrame(
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
    children: list[dict] = []
    changed = False
    kept = False
    problem = None
    for n, (proposal, before, after) in enumerate(
        zip(proposals, original.to_dict("records"), edited.to_dict("records"), strict=True), start=1
    ):
        if bool(after.get("remove")):
            changed = True
            continue
        kept = True
        text = " ".join(str(after.get("question_text") or "").split())
        priority = after.get("priority")
        if not text:
            problem = f"Question {n}: the text is empty. Type a question or tick *remove*."
            continue
        if priority is None or pd.isna(priority) or not 0 <= float(priority) <= 1:
            problem = f"Question {n}: the priority must be a number from 0 to 1."
            continue
        changed = changed or text != before["question_text"] or abs(float(priority) - before["priority"]) > 1e-9
        child = {"question_text": text, "priority": float(priority)}
        if proposal.get("rationale"):
            child["rationale"] = proposal["rationale"]
        children.append(child)
    return (children if changed else None), kept, problem


def drill_gate(s: RunSnapshot, pending: dict) -> None:
    """A branch wants to dig deeper: show why, let the user edit its proposed children, approve or reject."""
    branch = pending.get("branch") or {}
    bid = branch.get("id")
    number = widgets.branch_numbers(s.branches).get(bid, bid)
    st.subheader("Go deeper?")
    st.markdown(f"**{esc(number)} · {esc(branch.get('question_text'))}**")
    depth = branch.get("depth_assessment")
    reasoning = pending.get("reasoning") or run_view.depth_reasoning(s.log, bid)
    if depth or reasoning:
        verdict = f"The model judged the findings **{esc(depth)}**" if depth else "The model's assessment"
        st.markdown(f":material/psychology: {verdict}" + (f": {esc(reasoning)}" if reasoning else "."))
    st.markdown("**Proposed narrower questions** · edit the text or priority, or tick *remove* to leave one out")
    if pending.get("error"):
        st.error(esc(pending["error"]), icon=":material/error:")
    children, kept, problem = drill_children(pending, key=f"drill_editor_{s.run_id}_{bid}")
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


def controls(s: RunSnapshot) -> None:
    """What the user can do now, depending on the run's status and open gate."""
    pending = s.pending or {}
    if s.status == "awaiting_review" or pending.get("kind") == "review":
        st.info("The plan is ready for review.", icon=":material/rate_review:")
        st.page_link(
            state.REVIEW_PLAN, label="Review the plan", icon=":material/arrow_forward:", query_params={"run": s.run_id}
        )
    elif pending.get("kind") == "step":
        step_gate(s, pending)
    elif pending.get("kind") == "revision":
        revision_gate(s, pending)
    elif pending.get("kind") == "drill_down":
        drill_gate(s, pending)
    elif s.status in state.FINISHED:
        st.success("The research is done.", icon=":material/check_circle:")
        st.page_link(state.REPORT, label="Read the report", icon=":material/article:", query_params={"run": s.run_id})
    elif s.status in ("failed", "interrupted", "created"):
        if s.status == "failed":
            st.error(
                f"The run failed: {esc(s.error or 'unknown error')}  \n"
                "Everything gathered so far is saved. Fix the cause (for example the LLM endpoint on the "
                "Settings page) and resume.",
                icon=":material/error:",
            )
        else:
            st.warning(
                "The run stopped before it finished (the server restarted or the process ended). "
                "Everything gathered so far is saved; resume to continue from there.",
                icon=":material/pause:",
            )
        if resume.resume_buttons(run_id, "run_resume"):
            st.rerun()
    elif s.status == "cancelled":
        st.info("This run was cancelled.", icon=":material/cancel:")


@st.fragment(run_every=POLL_SECONDS)
def live_view(run_id: str) -> None:
    """Redraw the run from its snapshot every second while it works; no full page rerun."""
    try:
        now = run_view.shown_snapshot(runner.snapshot(run_id))
    except RunError:
        st.error(
            f"Run `{esc(run_id)}` no longer exists: it was deleted while you were watching it. "
            "Pick another run on the History page.",
            icon=":material/delete:",
        )
        st.page_link(state.HISTORY, label="History", icon=":material/history:")
        return
    if not is_live(now):
        st.rerun(scope="app")
    messages = services.progress_feed().since(services.timestamp(now.created_at))
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.badge("working", color="blue", icon=":material/progress_activity:")
        st.caption(esc(run_view.activity_line(now)))
    if messages and not any(b.get("status") != "pending" for b in now.branches):
        with st.status("Starting the embedded model…", expanded=True):
            for message in messages[-6:]:
                st.caption(esc(message))
    run_view.run_panel(now, key_prefix="run")


if is_live(snap):
    live_view(run_id)
else:
    run_view.overview(snap, key_prefix="run")
    controls(snap)
    st.divider()
    run_view.details(snap, key_prefix="run")
