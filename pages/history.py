"""History: every run of this installation, newest first; open, resume or delete one."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from research_core.runner import RunError
from ui import services, state, widgets
from ui.widgets import esc

state.require_shell()

st.title("History")

runner = services.get_runner()
try:
    runs = runner.runs()
except Exception as exc:  # an unreadable database
    st.error(f"The run history could not be read: {exc}. Check the database path on the Settings page.")
    st.stop()

if not runs:
    st.info("No runs yet.", icon=":material/history:")
    st.page_link(state.NEW_RESEARCH, label="Start your first research", icon=":material/edit_note:")
    st.stop()

state.init_state({"history_confirm_delete": None, "history_message": None})
if st.session_state["history_message"]:
    st.success(st.session_state["history_message"], icon=":material/check:")
    st.session_state["history_message"] = None


def cost_of(row: dict) -> float | None:
    """The run's total cost from its stored totals."""
    try:
        totals = json.loads(row.get("totals_json") or "{}")
    except ValueError:
        return None
    value = totals.get("cost_usd")
    return float(value) if value is not None else None


frame = pd.DataFrame(
    [
        {
            "date": widgets.format_time(r.get("created_at")),
            "question": r.get("question") or "",
            "mode": r.get("mode") or "",
            "status": widgets.status_label(r.get("status") or ""),
            "cost": cost_of(r),
            "id": r["id"],
        }
        for r in runs
    ]
)
st.dataframe(
    frame,
    hide_index=True,
    width="stretch",
    column_config={
        "date": st.column_config.TextColumn("date (UTC)", width=130),
        "question": st.column_config.TextColumn("question", width="large"),
        "cost": st.column_config.NumberColumn("cost", format="$%.4f", width=90),
        "id": st.column_config.TextColumn("run id", width=170),
    },
    key="history_table",
)

by_id = {r["id"]: r for r in runs}
selected = st.selectbox(
    "Run",
    list(by_id),
    format_func=lambda i: (
        f"{widgets.format_time(by_id[i].get('created_at'))} · "
        f"{widgets.shorten(by_id[i].get('question') or '', 80)} · {widgets.status_label(by_id[i]['status'])}"
    ),
    key="history_selected",
)
row = by_id[selected]
status = row["status"]

with st.container(border=True):
    st.markdown(f"**{esc(row.get('question'))}**")
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        widgets.status_badge(status)
        st.caption(f"`{selected}` · {esc(row.get('mode') or '–')}")
    if row.get("error"):
        st.caption(f"Error: {esc(row['error'])}")
    with st.container(horizontal=True, gap="small"):
        if status in state.FINISHED:
            label, icon = "Open report", ":material/article:"
        elif status == "awaiting_review":
            label, icon = "Review plan", ":material/rate_review:"
        else:
            label, icon = "Open run", ":material/account_tree:"
        open_clicked = st.button(label, type="primary", icon=icon, key="history_open")
        resume_clicked = False
        if status in state.RESUMABLE and not services.run_is_active(selected):
            resume_clicked = st.button("Resume", icon=":material/replay:", key="history_resume")
        delete_clicked = st.button(
            "Delete…", icon=":material/delete:", key="history_delete", disabled=services.run_is_active(selected)
        )

    if open_clicked:
        state.go(state.page_for_status(status), selected)
    if resume_clicked:
        try:
            runner.resume_background(selected)
        except RunError as exc:
            st.error(str(exc), icon=":material/error:")
        else:
            state.go(state.RUN, selected)
    if delete_clicked:
        st.session_state["history_confirm_delete"] = selected
    if st.session_state["history_confirm_delete"] == selected:
        st.warning("Delete this run, its checkpoints and its report? This cannot be undone.", icon=":material/delete:")
        with st.container(horizontal=True, gap="small"):
            confirm = st.button("Delete permanently", type="primary", key="history_delete_confirm")
            keep = st.button("Keep it", key="history_delete_cancel")
        if keep:
            st.session_state["history_confirm_delete"] = None
            st.rerun()
        if confirm:
            try:
                runner.delete(selected)
            except RunError as exc:
                st.error(str(exc), icon=":material/error:")
            else:
                st.session_state["history_confirm_delete"] = None
                if st.session_state.get(state.CURRENT_RUN) == selected:
                    state.set_current_run(None)
                st.session_state["history_message"] = "The run was deleted."
                st.rerun()
