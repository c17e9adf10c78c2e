"""Resume a stopped run: with the model it started with, or with the current settings when they differ."""

from __future__ import annotations

from typing import Any

import streamlit as st

from research_core.configuration import LLMSettings, resolve_llm_settings
from research_core.runs.errors import RunError
from ui import services
from ui.widgets import esc

# What makes two LLM settings "the same model" for a resumed run.
_IDENTITY = ("provider", "base_url", "model", "synthesis_model")


def llm_label(settings: LLMSettings) -> str:
    """A short name for where a run's LLM calls go."""
    if settings.embedded:
        return f"the {settings.endpoint_label()}"
    return f"{settings.model or 'default model'} at {settings.endpoint_label()}"


def run_own_llm(run_id: str) -> LLMSettings | None:
    """The LLM settings the run started with, when they differ from the current ones; else None."""
    runner = services.get_runner()
    try:
        stored = runner.llm_record(run_id)
    except RunError:
        return None
    if not stored:
        return None
    own = resolve_llm_settings(stored)
    current = runner.llm_settings.to_record()
    if all(own.to_record().get(k) == current.get(k) for k in _IDENTITY):
        return None
    return own


def _start(runner: Any, run_id: str) -> bool:
    try:
        runner.resume_background(run_id)
    except RunError as exc:
        st.error(str(exc), icon=":material/error:")
        return False
    return True


def resume_buttons(run_id: str, key: str, *, primary: bool = True) -> bool:
    """Resume buttons for a stopped run; True once a resume has started.

    A run continues with its own model by default. When the Settings page now points somewhere
    else (say the run's endpoint failed and the user switched), both choices are offered.
    """
    own = run_own_llm(run_id)
    kind = "primary" if primary else "secondary"
    if own is None:
        if st.button("Resume", type=kind, icon=":material/replay:", key=key):
            return _start(services.get_runner(), run_id)
        return False
    current = services.get_runner().llm_settings
    st.caption(
        f"This run started with **{esc(llm_label(own))}**; the Settings page now uses **{esc(llm_label(current))}**."
    )
    with st.container(horizontal=True, gap="small"):
        own_clicked = st.button("Resume with its own model", type=kind, icon=":material/replay:", key=key)
        current_clicked = st.button("Resume with the current settings", icon=":material/tune:", key=f"{key}_current")
    if own_clicked:
        return _start(services.runner_with_llm(own), run_id)
    if current_clicked:
        return _start(services.get_runner(), run_id)
    return False
