"""Session state and navigation: which run this browser session is looking at, and page paths.

Each session tracks its own current run (`st.session_state`), mirrored into the `?run=` query
parameter so a reloaded or reopened tab finds the run again. Runs themselves live in the server's
runner and database, so two sessions never mix their runs and History shows all of them.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

CURRENT_RUN = "current_run_id"

NEW_RESEARCH = "app_pages/new_research.py"
REVIEW_PLAN = "app_pages/review_plan.py"
RUN = "app_pages/run.py"
REPORT = "app_pages/report.py"
HISTORY = "app_pages/history.py"
COMPARE = "app_pages/compare.py"
LIBRARY = "app_pages/library.py"
SETTINGS = "app_pages/settings.py"

FINISHED = ("completed", "completed_with_fallback")
RESUMABLE = ("failed", "interrupted")


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
