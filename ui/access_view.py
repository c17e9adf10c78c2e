"""A run's owner and sharing on the pages: whose it is, the read-only notice, Share and Fork.

Shown only when the workbench has accounts (`rights` is None without them, and nothing is drawn).
The rights come from `research_core.accounts.access.RunRights`; the run API refuses what they deny
whatever a page shows, so these only spare the user buttons that could not work.
"""

from __future__ import annotations

import streamlit as st

from research_core.accounts.access import RunRights
from research_core.runs.errors import RunError
from ui import accounts, services, state
from ui.widgets import esc


def owner_caption(rights: RunRights | None) -> None:
    """`Alice's run · private` (or shared with the team)."""
    if rights is None:
        return
    shared = "shared with the team" if rights.visibility == "team" else "private"
    st.caption(f":material/person: {esc(rights.owner)}'s run · {shared}")


def read_only_notice(rights: RunRights | None) -> None:
    """Say that the user reads this run without steering it, and why."""
    if rights is None or not rights.read_only:
        return
    whose = f"this is {esc(rights.owner)}'s run, shared with the team"
    if rights.fork:
        why = f"{whose}. Read it, or fork it to research it yourself."
    elif rights.owner == accounts.signed_in().name:
        why = "your role reads runs only."
    else:
        why = f"{whose}."
    st.info(f"Read-only: {why}", icon=":material/visibility:")


def share_toggle(run_id: str, rights: RunRights | None, key: str) -> None:
    """The owner's switch between private and shared with the team."""
    if rights is None or not rights.share:
        return

    def changed() -> None:
        shared = bool(st.session_state[key])
        try:
            services.get_runner().set_visibility(run_id, "team" if shared else "private")  # type: ignore[union-attr]
        except RunError as exc:
            st.session_state[f"{key}_error"] = str(exc)

    st.toggle(
        "Shared with the team",
        value=rights.visibility == "team",
        key=key,
        on_change=changed,
        help="Shared: every account sees it in History and may open it read-only or fork it. Private: you alone.",
    )
    error = st.session_state.pop(f"{key}_error", None)
    if error:
        st.error(error, icon=":material/error:")


def fork_button(run_id: str, rights: RunRights | None, key: str, *, primary: bool = False) -> None:
    """Fork: a new run of the user's with this run's question, settings and plan, opened at its plan review."""
    if rights is None or not rights.fork:
        return
    clicked = st.button(
        "Fork",
        icon=":material/fork_right:",
        key=key,
        type="primary" if primary else "secondary",
        help="Copy the question, settings and plan into a new run of your own, stopped at its plan review.",
    )
    if not clicked:
        return
    runner = services.get_runner()
    try:
        new_id = runner.fork(run_id)  # type: ignore[union-attr]
        runner.resume_background(new_id)
    except RunError as exc:
        st.error(str(exc), icon=":material/error:")
        return
    state.go(state.REVIEW_PLAN, new_id)
