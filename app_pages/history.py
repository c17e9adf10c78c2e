"""History: every run of this installation, newest first; open, resume, delete, compare, re-run a branch."""

from __future__ import annotations

import streamlit as st

from research_core.accounts import permissions
from research_core.runs.errors import RunError
from research_core.runs.records import RunSummary
from ui import access_view, accounts, resume, run_list, services, state, widgets
from ui.widgets import esc

st.title("History")
if accounts.accounts_on():
    st.caption("Your runs and the runs shared with the team.")

runner = services.get_runner()
team = accounts.accounts_on()  # with accounts: who owns each run, and what this user may do with it
try:
    runs = runner.runs()
except Exception as exc:  # an unreadable database
    st.error(f"The run history could not be read: {exc}. Check the database path on the Settings page.")
    st.stop()

if not runs:
    st.info("No runs yet.", icon=":material/history:")
    if accounts.allowed(permissions.may_start):
        st.page_link(state.NEW_RESEARCH, label="Start your first research", icon=":material/edit_note:")
    st.stop()

state.init_state({"history_confirm_delete": None, "history_message": None})
if st.session_state["history_message"]:
    st.success(st.session_state["history_message"], icon=":material/check:")
    st.session_state["history_message"] = None

st.dataframe(
    run_list.history_frame(runs, with_owner=team),
    hide_index=True,
    width="stretch",
    column_config={
        "date": st.column_config.TextColumn("date (UTC)", width=130),
        "question": st.column_config.TextColumn("question", width="large"),
        "cost": st.column_config.NumberColumn("cost", format="$%.4f", width=90),
        "id": st.column_config.TextColumn("run id", width=170),
        "re-run of": st.column_config.TextColumn(
            "re-run of", width=170, help="The run whose branch this run researched again"
        ),
    },
    key="history_table",
)

by_id = {r.id: r for r in runs}
finished_ids = [r.id for r in runs if r.status in state.FINISHED]


def open_compare(left: str, right: str) -> None:
    """Open the Compare page with these two runs picked (does not return)."""
    st.session_state["compare_request"] = (left, right)
    st.switch_page(state.COMPARE, query_params={"left": left, "right": right})


def lineage(row: RunSummary) -> None:
    """Where a branch re-run comes from, and the re-runs made from this run."""
    parent = row.parent_run_id
    if parent and parent in by_id:
        original = by_id[parent]
        st.caption(f"Re-run of one branch of the run of {widgets.format_time(original.created_at)} UTC · `{parent}`")
        with st.container(horizontal=True, gap="small"):
            st.page_link(
                state.page_for_status(original.status),
                label="Open the original run",
                icon=":material/north_west:",
                query_params={"run": parent},
            )
            both_done = original.status in state.FINISHED and row.status in state.FINISHED
            if both_done and st.button("Compare with the original", icon=":material/compare:", key="history_vs_parent"):
                open_compare(parent, row.id)
    elif parent and team:
        st.caption(f"Re-run of one branch of run `{parent}`, which is not open to you.")
    elif parent:
        st.caption(f"Re-run of one branch of run `{parent}`, which has since been deleted.")
    children = [r.id for r in runs if r.parent_run_id == row.id]
    if children:
        st.caption("Branch re-runs of this run: " + ", ".join(f"`{c}`" for c in children))


def rerun_branch(run_id: str) -> None:
    """Pick a branch of a finished run, edit its question and priority, research it again as a new run."""
    result = runner.result(run_id)
    branches = result.sub_questions if result else []
    if result is None or result.mode == "flat" or not branches:
        return
    numbers = widgets.branch_numbers(branches)
    by_branch = {sq.id: sq for sq in branches}

    def branch_label(branch_id: str) -> str:
        return f"{numbers.get(branch_id, branch_id)} · {widgets.shorten(by_branch[branch_id].question_text, 90)}"

    with st.expander("Re-run one branch", icon=":material/call_split:"):
        st.caption(
            "Research one branch again, with its question or priority edited. Every other branch's findings "
            "are reused and the report is rebuilt, as a new run linked to this one."
        )
        branch_id = st.selectbox(
            "Branch",
            list(by_branch),
            format_func=branch_label,
            key=f"history_rerun_branch_{run_id}",
        )
        branch = by_branch[branch_id]
        text = st.text_area(
            "Question of this branch",
            value=branch.question_text,
            max_chars=2000,
            key=f"history_rerun_text_{run_id}_{branch_id}",
        )
        priority = st.number_input(
            "Priority",
            min_value=0.0,
            max_value=1.0,
            value=branch.priority,
            step=0.05,
            format="%.2f",
            key=f"history_rerun_priority_{run_id}_{branch_id}",
        )
        if st.button("Re-run this branch", type="primary", icon=":material/replay:", key="history_rerun_start"):
            try:
                new_id = runner.prepare_rerun(run_id, branch_id, question_text=text, priority=priority)
                runner.resume_background(new_id)
            except RunError as exc:
                st.error(str(exc), icon=":material/error:")
            else:
                state.go(state.RUN, new_id)


def compare_picker() -> None:
    """Pick two finished runs and open them on the Compare page (whoever may start research: the judge)."""
    if len(finished_ids) < 2 or not accounts.allowed(permissions.may_start):
        return
    with st.container(border=True):
        st.markdown("**Compare two runs**")
        picked = st.multiselect(
            "Runs to compare",
            finished_ids,
            format_func=lambda i: run_list.compare_label(by_id[i], 60),
            max_selections=2,
            placeholder="Pick two finished runs",
            key="history_compare_pick",
        )
        if st.button("Compare", icon=":material/compare:", key="history_compare", disabled=len(picked) != 2):
            open_compare(picked[0], picked[1])


selected = st.selectbox(
    "Run",
    list(by_id),
    format_func=lambda i: run_list.run_label(by_id[i]),
    key="history_selected",
)
row = by_id[selected]
status = row.status
rights = services.rights(selected)  # None without accounts: everything, as always
steer = rights is None or rights.steer

with st.container(border=True):
    st.markdown(f"**{esc(row.question)}**")
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        widgets.status_badge(status)
        st.caption(f"`{selected}` · {esc(row.mode or '–')}")
    access_view.owner_caption(rights)
    if row.error:
        st.caption(f"Error: {esc(row.error)}")
    lineage(row)
    with st.container(horizontal=True, gap="small"):
        if status in state.FINISHED:
            label, icon = "Open report", ":material/article:"
        elif status == "awaiting_review":
            label, icon = "Review plan", ":material/rate_review:"
        else:
            label, icon = "Open run", ":material/account_tree:"
        open_clicked = st.button(label, type="primary", icon=icon, key="history_open")
        resumed = False
        if steer and status in state.RESUMABLE and not services.run_is_active(selected):
            resumed = resume.resume_buttons(selected, "history_resume", primary=False)
        # "running" here means a live process drives it (runs() reports a dead owner's run as interrupted)
        driven = services.run_is_active(selected) or status == "running"
        delete_clicked = (rights is None or rights.delete) and st.button(
            "Delete…",
            icon=":material/delete:",
            key="history_delete",
            disabled=driven,
            help="This run is being researched; stop it or let it finish before deleting it." if driven else None,
        )
        access_view.fork_button(selected, rights, key="history_fork")
    access_view.share_toggle(selected, rights, key=f"history_share_{selected}")

    if open_clicked:
        state.go(state.page_for_status(status), selected)
    if resumed:
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

if status in state.FINISHED and steer:
    rerun_branch(selected)
compare_picker()
