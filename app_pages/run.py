"""Run: watch the research tree grow, answer step gates, resume a failed run."""

from __future__ import annotations

import streamlit as st

from research_core.gates import DrillDownPayload, GateAnswer, ReviewPayload, RevisionPayload, StepPayload, read_payload
from research_core.runs.errors import RunError
from research_core.runs.snapshot import RunSnapshot
from ui import access_view, gate_views, resume, run_view, services, state, widgets
from ui.widgets import esc

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
    rights = services.rights(run_id)  # None without accounts: everything, as always
except RunError as exc:
    st.info(f"{esc(exc)} Pick a run on the History page.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()
if st.query_params.get("run") != run_id:
    st.query_params["run"] = run_id


def is_live(s: RunSnapshot) -> bool:
    """True while the run is being driven (here or by another process) or waits for a worker."""
    return services.run_is_active(s.run_id) or s.status in ("queued", "running")


def send(answer: GateAnswer) -> None:
    """Answer the open gate (with an answer its parser accepted) on the runner's thread and redraw."""
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
access_view.owner_caption(rights)


# ---- gates and terminal states ------------------------------------------------------------------


def controls(s: RunSnapshot) -> None:
    """What the user can do now, depending on the run's status and open gate."""
    gate = read_payload(s.pending)
    if s.status == "awaiting_review" or isinstance(gate, ReviewPayload):
        st.info("The plan is ready for review.", icon=":material/rate_review:")
        st.page_link(
            state.REVIEW_PLAN, label="Review the plan", icon=":material/arrow_forward:", query_params={"run": s.run_id}
        )
    elif isinstance(gate, StepPayload):
        gate_views.step_gate(s, gate, send)
    elif isinstance(gate, RevisionPayload):
        gate_views.revision_gate(s, gate, send)
    elif isinstance(gate, DrillDownPayload):
        gate_views.drill_gate(s, gate, send)
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


@st.fragment(run_every=run_view.POLL_SECONDS)
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
        if now.status == "queued":
            st.badge("queued", color="gray", icon=":material/schedule:")
            st.caption("Waiting for a worker to take the run.")
        else:
            st.badge("working", color="blue", icon=":material/progress_activity:")
            st.caption(esc(run_view.activity_line(now)))
        if runner.location.is_postgres:  # a worker drives it: it stops at its next step
            st.button("Stop", icon=":material/stop:", key="run_stop", on_click=runner.request_stop, args=(run_id,))
    if messages and not any(b.status != "pending" for b in now.branches):
        run_view.model_start_status(messages)
    run_view.run_panel(now, key_prefix="run")


def read_only_controls(s: RunSnapshot) -> None:
    """What a reader of someone else's shared run can do: read, follow to the report, fork."""
    access_view.read_only_notice(rights)
    with st.container(horizontal=True, gap="small"):
        if s.status in state.FINISHED:
            report = {"run": s.run_id}
            st.page_link(state.REPORT, label="Read the report", icon=":material/article:", query_params=report)
        access_view.fork_button(s.run_id, rights, key="run_fork")


if is_live(snap):
    if rights is not None and rights.read_only:
        access_view.read_only_notice(rights)
    live_view(run_id)
else:
    run_view.overview(snap, key_prefix="run")
    if rights is not None and rights.read_only:
        read_only_controls(snap)
    else:
        controls(snap)
    st.divider()
    run_view.details(snap, key_prefix="run")
