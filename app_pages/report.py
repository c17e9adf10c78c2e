"""Report: the final answer with citations, branch syntheses, sources, totals and downloads."""

from __future__ import annotations

import logging

import streamlit as st
from pydantic import ValidationError

from research_core.output.export import redact_result
from research_core.runs.errors import RunError
from ui import access_view, report_view, services, state, widgets
from ui.widgets import esc

logger = logging.getLogger(__name__)


def problem(exc: Exception) -> str:
    """A short, one-line account of why a saved result could not be used."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return f"{first.get('msg', 'invalid data')}{f' at {where}' if where else ''}"
    return widgets.shorten(f"{type(exc).__name__}: {exc}", 200)


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
    rights = services.rights(run_id)  # None without accounts: everything, as always
except RunError as exc:
    st.info(f"{esc(exc)} Pick a run on the History page.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()
except Exception as exc:  # a damaged or incompatible result, or an unreadable database
    logger.exception("the result of run %s could not be read", run_id)
    st.error(
        f"The report of run `{esc(run_id)}` could not be read: {esc(problem(exc))}  \n"
        "The saved result is damaged or comes from an incompatible version of Arbor. "
        "The run's progress may still open on the Run page.",
        icon=":material/error:",
    )
    with st.container(horizontal=True):
        st.page_link(state.RUN, label="Open the run", icon=":material/arrow_forward:", query_params={"run": run_id})
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

result = redact_result(result)  # shown as the downloads are: key-like strings redacted
st.markdown(f"### {esc(result.question)}")
with st.container(horizontal=True, gap="small", vertical_alignment="center"):
    widgets.status_badge(result.status)
    st.badge(result.mode, color="gray", icon=":material/account_tree:")
    st.caption(f"Run `{result.run_id}` · finished {widgets.format_time(result.finished_at)} UTC")
if rights is not None:
    access_view.owner_caption(rights)
    access_view.read_only_notice(rights)
    with st.container(horizontal=True, gap="medium", vertical_alignment="center"):
        access_view.share_toggle(run_id, rights, key=f"report_share_{run_id}")
        access_view.fork_button(run_id, rights, key="report_fork")
try:
    report_view.downloads(result, "report")
    report_view.report(result, key_prefix="report")
except Exception as exc:  # a result that validates but cannot be drawn (hand-edited or from another version)
    logger.exception("the report of run %s could not be shown", run_id)
    st.error(
        f"Part of this report could not be shown: {esc(problem(exc))}. "
        "The saved result may be damaged; the JSON download above still holds it.",
        icon=":material/error:",
    )
