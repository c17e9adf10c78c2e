"""Review plan: edit the proposed tree of sub-questions, check the budget, approve or cancel."""

from __future__ import annotations

import streamlit as st

from research_core.configuration import RunConfig
from research_core.errors import ArborError
from research_core.gates import ReviewCancel, ReviewPayload, read_payload
from research_core.planning.plan import PlanError
from research_core.runs.errors import RunError
from ui import access_view, plan_table, plan_view, services, state
from ui.widgets import esc, show_warnings, status_badge, status_label

st.title("Review plan")

run_id = state.current_run_id()
if not run_id:
    st.info("There is no plan to review yet. Start with a question on New research.", icon=":material/info:")
    st.page_link(state.NEW_RESEARCH, label="New research", icon=":material/edit_note:")
    st.stop()

runner = services.get_runner()
try:
    snap = runner.snapshot(run_id)
    rights = services.rights(run_id)  # None without accounts: everything, as always
except RunError as exc:
    st.info(f"{esc(exc)} Pick a run on the History page.", icon=":material/info:")
    st.page_link(state.HISTORY, label="History", icon=":material/history:")
    st.stop()

st.markdown(f"### {esc(snap.question)}")
gate = read_payload(snap.pending)
pending = gate if isinstance(gate, ReviewPayload) else None
access_view.owner_caption(rights)
if rights is not None and rights.read_only and pending is not None:
    access_view.read_only_notice(rights)
    st.caption(f"Strategy: **{esc(pending.strategy or 'multi-faceted')}** · waiting for its owner's review.")
    rows = plan_table.to_frame(plan_table.rows_from_payload(pending.sub_questions))
    st.dataframe(rows, hide_index=True, width="stretch", key="rp_read_only")
    access_view.fork_button(run_id, rights, key="rp_fork", primary=True)
    st.stop()


@st.fragment(run_every=0.7)
def wait_for_gate(run_id: str) -> None:
    """Poll until the plan is ready, then redraw the page with the editor."""
    now = services.get_runner().snapshot(run_id)
    busy = services.run_is_active(run_id)
    if not busy and (now.status != snap.status or now.pending):
        st.rerun(scope="app")
    with st.status("Proposing a plan…", state="running"):
        for message in services.progress_feed().since(services.timestamp(now.created_at))[-4:]:
            st.caption(esc(message))
        st.caption("The editor appears here as soon as the plan is ready.")


# The gate is only answerable once the runner's thread has let go of the run.
if pending is None or services.run_is_active(run_id):
    if services.run_is_active(run_id) or (snap.status in ("created", "queued", "running") and snap.mode != "flat"):
        wait_for_gate(run_id)
        st.stop()
    status_badge(snap.status)
    st.info(f"This run is not waiting for a plan review ({status_label(snap.status).lower()}).", icon=":material/info:")
    st.page_link(state.page_for_status(snap.status), label="Open the run", query_params={"run": run_id})
    st.stop()

config = RunConfig(**snap.config)
rows_key = f"rp_rows_{run_id}"
version_key = f"rp_version_{run_id}"
state.init_state({rows_key: plan_table.rows_from_payload(pending.sub_questions), version_key: 0})
editor_key = f"rp_editor_{run_id}_{st.session_state[version_key]}"
# Streamlit drops an editor's edits when the page is left; the draft keeps them, and a fresh
# editor (first view, or back from another page) starts from it.
draft_key = f"rp_draft_{run_id}"
if editor_key not in st.session_state and draft_key in st.session_state:
    st.session_state[rows_key] = st.session_state[draft_key]

st.caption(
    f"Strategy: **{esc(pending.strategy or 'multi-faceted')}** · "
    "Edit the text and priority of each sub-question, add or delete rows, nest a row under another with "
    "*parent id*, and change the *order* column to reorder. Approve when the plan looks right."
)
if snap.mode == "hypothesis":
    st.caption(
        ":material/science: Each row is a hypothesis to test. After research, each is judged validated, refuted "
        "or inconclusive, and a refuted one may pivot to a better hypothesis."
    )
show_warnings(snap.warnings)
if pending.error:
    st.error(f"The last answer was refused: {esc(pending.error)}", icon=":material/error:")

edited = plan_view.plan_editor(st.session_state[rows_key], editor_key)
rows = plan_table.rows_from_frame(edited)
st.session_state[draft_key] = rows
check = plan_table.check_rows(rows, snap.question, pending.strategy, config)
if check.error:
    st.error(check.error, icon=":material/error:")

with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
    # Options and labels come from the table as last rebased, not from live edits: a widget whose
    # options change while the user types would be recreated, and that resets the editor.
    base_rows = [r for r in plan_table.ordered(st.session_state[rows_key]) if r.get("id")]
    labels = {r["id"]: f"{r['id']} · {r['question_text'][:80]}" for r in base_rows}
    target = st.selectbox(
        "Split a sub-question into narrower children",
        list(labels),
        format_func=labels.__getitem__,
        key=f"rp_split_target_{run_id}",
        width=520,
    )
    split = st.button("Split", icon=":material/call_split:", key=f"rp_split_{run_id}", disabled=target is None)
    reorder = st.button(
        "Apply order", icon=":material/sort:", key=f"rp_reorder_{run_id}", help="Sort the table by the order column"
    )

current = {r["id"]: r for r in rows if r.get("id")}
if split and target and target not in current:
    st.error(f"{target} is no longer in the table.", icon=":material/error:")
elif split and target:
    text = current[target]["question_text"] or labels[target]
    try:
        with st.spinner("Asking the model for narrower sub-questions…"):
            proposal, warnings = runner.propose_plan(text, config)
        children = plan_table.proposed_children(proposal)
        st.session_state[rows_key] = st.session_state[draft_key] = plan_table.add_children(rows, target, children)
        st.session_state[version_key] += 1
        st.rerun()
    except (RunError, PlanError) as exc:
        st.error(f"Could not split {target}: {exc}", icon=":material/error:")
    except ArborError as exc:  # LLM errors carry a user message
        st.error(f"Could not split {target}: {exc.user_message or exc}", icon=":material/error:")
    except Exception as exc:
        st.error(f"Could not split {target}: {exc}", icon=":material/error:")
if reorder:
    st.session_state[rows_key] = st.session_state[draft_key] = plan_table.renumber(rows)
    st.session_state[version_key] += 1
    st.rerun()

tree_col, budget_col = st.columns([3, 2], gap="large")
if check.ok and check.plan is not None:
    llm = runner.llm
    est = plan_table.estimate(check.plan, config, llm.price("work"), llm.price("synthesis"))
    with budget_col:
        plan_view.budget_panel(est, config)
    with tree_col:
        st.markdown("##### Tree")
        st.markdown(plan_view.tree_markdown(check, est))
else:
    with tree_col:
        st.caption("Fix the plan to see the tree and the budget.")

st.divider()
with st.container(horizontal=True, gap="small"):
    approve = st.button(
        "Approve and research",
        type="primary",
        icon=":material/play_arrow:",
        key=f"rp_approve_{run_id}",
        disabled=not check.ok,
        help=None if check.ok else "Fix the highlighted problem first.",
    )
    with st.popover("Cancel run", icon=":material/close:"):
        st.write("Cancel this run? The plan is discarded and nothing is researched.")
        cancel = st.button("Yes, cancel the run", key=f"rp_cancel_{run_id}", type="primary")

if approve and check.answer is not None:
    try:
        runner.resume_background(run_id, check.answer)
    except RunError as exc:
        st.error(str(exc), icon=":material/error:")
        st.stop()
    for key in (rows_key, version_key, draft_key):
        st.session_state.pop(key, None)
    state.go(state.RUN, run_id)

if cancel:
    try:
        runner.resume_background(run_id, ReviewCancel())
    except RunError as exc:
        st.error(str(exc), icon=":material/error:")
        st.stop()
    for key in (rows_key, version_key, draft_key):
        st.session_state.pop(key, None)
    state.go(state.RUN, run_id)
