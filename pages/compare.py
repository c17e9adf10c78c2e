"""Compare: two finished runs side by side (totals and reports)."""

from __future__ import annotations

import pandas as pd
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
for key in ("compare_left", "compare_right"):
    if st.session_state[key] not in by_id:
        st.session_state[key] = ids[0]
pick_left, pick_right = st.columns(2, gap="large")
left_id = pick_left.selectbox("Left", ids, format_func=label, key="compare_left")
right_id = pick_right.selectbox("Right", ids, format_func=label, key="compare_right")
left, right = runner.result(left_id), runner.result(right_id)
if left is None or right is None:
    st.info("One of these runs has no stored report; pick another.", icon=":material/info:")
    st.stop()

rows = [
    ("Mode", left.mode, right.mode),
    ("Status", widgets.status_label(left.status), widgets.status_label(right.status)),
]
rows += [(name, a, b) for (name, a), (_, b) in zip(report_view.totals(left), report_view.totals(right), strict=True)]
st.dataframe(
    pd.DataFrame(rows, columns=["", "left", "right"]),
    hide_index=True,
    width="stretch",
    key="compare_totals",
)

left_col, right_col = st.columns(2, gap="large")
for col, key, result in ((left_col, "left", left), (right_col, "right", right)):
    with col:
        st.markdown(f"#### {esc(result.question)}")
        with st.container(border=True, height=640):
            report_view.report(result, key_prefix=f"compare_{key}", compact=True)
