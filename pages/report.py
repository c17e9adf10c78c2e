"""Report: the final answer with citations, branch syntheses, sources, totals and downloads."""

from __future__ import annotations

import streamlit as st

from research_core.runner import RunError
from ui import report_view, services, state, widgets
from ui.widgets import esc

state.require_shell()

st.title("Report")

run_id = state.current_run_id()
if not run_id:
    st.info("No run selected. Open a finished run from History.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()

runner = services.get_runner()
try:
    result = runner.result(run_id)
    snap = runner.snapshot(run_id) if result is None else None
except RunError as exc:
    st.info(f"{exc} Pick a run on the History page.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()

if result is None:
    status = snap.status if snap is not None else "unknown"
    st.info(
        f"This run has no report yet ({widgets.status_label(status).lower()}). "
        "The report appears here when it finishes.",
        icon=":material/hourglass_top:",
    )
    st.page_link(
        state.page_for_status(status),
        label="Open the run",
        icon=":material/arrow_forward:",
        query_params={"run": run_id},
    )
    st.stop()

if st.query_params.get("run") != run_id:
    st.query_params["run"] = run_id

st.markdown(f"### {esc(result.question)}")
with st.container(horizontal=True, gap="small", vertical_alignment="center"):
    widgets.status_badge(result.status)
    st.badge(result.mode, color="gray", icon=":material/account_tree:")
    st.caption(f"Run `{result.run_id}` · finished {widgets.format_time(result.finished_at)} UTC")
report_view.downloads(result, "report")
report_view.report(result, key_prefix="report")
