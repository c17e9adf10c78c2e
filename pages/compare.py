"""Compare: two finished runs side by side (totals and reports)."""

from __future__ import annotations

import streamlit as st

from ui import report_view, services, state, widgets
from ui.widgets import esc

state.require_shell()

st.title("Compare")
st.caption("Pick two finished runs, for example the same question researched flat and hierarchically.")

runner = services.get_runner()
finished = [r for r in runner.runs() if r["status"] in state.FINISHED]
if len(finished) < 2:
    st.info("Comparing needs at least two finished runs.", icon=":material/compare:")
    st.page_link(state.NEW_RESEARCH, label="Start a research", icon=":material/edit_note:")
    st.stop()

by_id = {r["id"]: r for r in finished}
ids = list(by_id)


def label(run_id: str) -> str:
    """How a run appears in the pickers."""
    r = by_id[run_id]
    return f"{widgets.format_time(r.get('created_at'))} · {r.get('mode') or '–'} · {widgets.shorten(r['question'], 70)}"


state.init_state({"compare_left": ids[1], "compare_right": ids[0]})
left_col, right_col = st.columns(2, gap="large")
for col, key in ((left_col, "compare_left"), (right_col, "compare_right")):
    with col:
        if st.session_state[key] not in by_id:
            st.session_state[key] = ids[0]
        run_id = st.selectbox("Run", ids, format_func=label, key=key)
        result = runner.result(run_id)
        if result is None:
            st.info("This run has no stored report.")
            continue
        st.markdown(f"#### {esc(result.question)}")
        with st.container(horizontal=True, gap="small"):
            widgets.status_badge(result.status)
            st.badge(result.mode, color="gray")
        for name, value in report_view.totals(result):
            st.markdown(f"{name}: **{esc(value)}**")
        with st.container(border=True, height=640):
            report_view.report(result, key_prefix=key, compact=True)
