"""Arbor's Streamlit entry point: the sign-in gate, page navigation and the sidebar (account, providers, current run).

Run with `streamlit run app.py`. The research itself runs on threads owned by the server
process's runner (see `ui.services`), so pages only read state and send answers.
"""

from __future__ import annotations

import logging

import streamlit as st

from research_core.accounts import permissions
from research_core.accounts.records import LOCAL_USER, User
from research_core.runs.snapshot import RunSnapshot
from ui import accounts, services, state
from ui.settings_store import KNOWN_BACKENDS
from ui.widgets import esc, shorten, status_badge

logger = logging.getLogger(__name__)

st.set_page_config(
    page_title="Arbor · hierarchical research",
    page_icon=":material/account_tree:",
    layout="wide",
    initial_sidebar_state="expanded",
)


def pages_for(user: User, *, start_on_history: bool = False) -> dict[str, list[st.Page]]:
    """The pages in the navigation: all of them, less Settings for whoever may not change them.

    A viewer starts on History (as does whoever signs in at the app's root address); New research
    stays listed (pages link to it) and says what a viewer may do.
    """
    reads_only = start_on_history or not permissions.may_start(user)
    workspace = [
        st.Page(state.HISTORY, title="History", icon=":material/history:", default=reads_only),
        st.Page(state.COMPARE, title="Compare", icon=":material/compare:"),
        st.Page(state.LIBRARY, title="Library", icon=":material/library_books:"),
    ]
    if permissions.may_change_settings(user):
        workspace.append(st.Page(state.SETTINGS, title="Settings", icon=":material/settings:"))
    return {
        "Research": [
            st.Page(state.NEW_RESEARCH, title="New research", icon=":material/edit_note:", default=not reads_only),
            st.Page(state.REVIEW_PLAN, title="Review plan", icon=":material/rate_review:"),
            st.Page(state.RUN, title="Run", icon=":material/account_tree:"),
            st.Page(state.REPORT, title="Report", icon=":material/article:"),
        ],
        "Workspace": workspace,
    }


def sidebar_providers() -> None:
    """Which LLM and search backends runs use, and whether they answer."""
    settings = services.app_settings()
    llm = services.llm_status()
    st.markdown("**Providers**")
    dot = ":green[●]" if llm.ok else ":red[●]"
    model = settings.model_label()
    if accounts.allowed(permissions.may_change_settings):  # the endpoint is the admin's to see
        st.markdown(f"{dot} LLM · `{esc(model)}`", help=llm.message)
        st.caption(esc(settings.endpoint_label()))
    else:
        st.markdown(f"{dot} LLM · `{esc(model)}`")
    names = [KNOWN_BACKENDS.get(n, n) for n in settings.search_backends]
    st.markdown(f"Search · {esc(', '.join(names) or 'none')}")


def sidebar_current_run() -> None:
    """The run this session is looking at, with a link to it (kept fresh while it works)."""
    run_id = state.current_run_id()
    if not run_id:
        return
    try:
        snap = services.get_runner().snapshot(run_id)
    except Exception:  # a deleted run, or a database being replaced: just leave it out
        return
    if snap.status in ("created", "running") or services.run_is_active(run_id):
        live_run_card(run_id)
    else:
        run_card(snap)


@st.fragment(run_every=2.0)
def live_run_card(run_id: str) -> None:
    """The run card, redrawn every two seconds while the run works."""
    try:
        run_card(services.get_runner().snapshot(run_id))
    except Exception:  # the run was deleted meanwhile
        return


def run_card(snap: RunSnapshot) -> None:
    """Question, status and a link to the page that fits the status."""
    run_id = snap.run_id
    st.markdown("**Current run**")
    st.caption(esc(shorten(snap.question, 90)))
    status_badge(snap.status)
    st.page_link(
        state.page_for_status(snap.status),
        label="Open",
        icon=":material/arrow_forward:",
        query_params={"run": run_id},
    )


def hold_requested_page() -> None:
    """Resolve the page the URL asks for (History at the root), shown nowhere, so it opens after signing in."""
    st.navigation(pages_for(LOCAL_USER, start_on_history=True), position="hidden")


user = accounts.require_user(services.store_location(), hold_requested_page)  # sign-in, and nothing else, first
page = st.navigation(pages_for(user))
with st.sidebar:
    accounts.sidebar_account(user)
    try:
        sidebar_providers()
        st.divider()
        sidebar_current_run()
    except Exception:
        logger.exception("sidebar failed")
        st.caption("Provider status is unavailable right now.")
page.run()
