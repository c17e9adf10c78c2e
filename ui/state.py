"""Session state and navigation: which run this browser session is looking at, and page paths.

Each session tracks its own current run (`st.session_state`), mirrored into the `?run=` query
parameter so a reloaded or reopened tab finds the run again. Runs themselves live in the server's
runner and database, so two sessions never mix their runs and History shows all of them.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

CURRENT_RUN = "current_run_id"
SHELL = "arbor_shell"
_SHELL_ATTEMPTS = "arbor_shell_attempts"

NEW_RESEARCH = "pages/new_research.py"
REVIEW_PLAN = "pages/review_plan.py"
RUN = "pages/run.py"
REPORT = "pages/report.py"
HISTORY = "pages/history.py"
COMPARE = "pages/compare.py"
LIBRARY = "pages/library.py"
SETTINGS = "pages/settings.py"

FINISHED = ("completed", "completed_with_fallback")
RESUMABLE = ("failed", "interrupted")
GATES = ("awaiting_review", "awaiting_step")


def mark_shell() -> None:
    """Record that app.py (navigation, sidebar, page config) runs around the page (app.py calls this)."""
    st.session_state[SHELL] = True


def require_shell() -> None:
    """Rerun through app.py when Streamlit ran a page on its own.

    Streamlit still supports the legacy `pages/` folder: until some session has called
    `st.navigation`, a fresh server routes a direct page URL (a bookmarked or reopened
    `/run?run=…`) straight to the page file, skipping app.py. Switching the legacy mode off and
    rerunning puts the page back inside the app.
    """
    if st.session_state.get(SHELL):
        return
    attempts = st.session_state.get(_SHELL_ATTEMPTS, 0)
    if attempts >= 2:  # never loop: render the page bare rather than not at all
        return
    st.session_state[_SHELL_ATTEMPTS] = attempts + 1
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return
    PagesManager.uses_pages_directory = False
    st.rerun()


def init_state(defaults: dict[str, Any]) -> None:
    """Set session-state keys that are not set yet."""
    for key, value in defaults.items():
        if key not in st.session_state:
            st.session_state[key] = value


def current_run_id() -> str | None:
    """The run this session looks at: the `?run=` query parameter wins, else the session's own."""
    from_url = st.query_params.get("run")
    if from_url:
        st.session_state[CURRENT_RUN] = from_url
    return st.session_state.get(CURRENT_RUN)


def set_current_run(run_id: str | None) -> None:
    """Make `run_id` this session's current run (and put it in the URL)."""
    st.session_state[CURRENT_RUN] = run_id
    if run_id:
        st.query_params["run"] = run_id
    elif "run" in st.query_params:
        del st.query_params["run"]


def go(page: str, run_id: str | None = None) -> None:
    """Switch to `page`, carrying the run id in the URL (does not return)."""
    if run_id:
        st.session_state[CURRENT_RUN] = run_id
        st.switch_page(page, query_params={"run": run_id})
    st.switch_page(page)


def page_for_status(status: str) -> str:
    """The page that best shows a run in `status`."""
    if status == "awaiting_review":
        return REVIEW_PLAN
    if status in FINISHED:
        return REPORT
    return RUN
