"""The Settings page's API key on a workbench with accounts: saved on the server by an admin, never shown whole.

The key goes into the database (`research_core.accounts.keys`), where the server reads it to call
the LLM; it is shown back masked only, and never written to a run, the settings file, an export or
a log. It is used by every account's runs from the next run on.
"""

from __future__ import annotations

import streamlit as st

from ui import accounts, services

INPUT = "set_server_key_input"
MESSAGE = "set_message"


def save_server_key() -> None:
    """Save the typed key on the server, and clear the input."""
    entered = st.session_state[INPUT].strip()
    st.session_state[INPUT] = ""
    if not entered:
        return
    accounts.server_keys(services.store_location()).set(entered, by=accounts.signed_in().name)
    services.clear_checks()
    st.session_state[MESSAGE] = "The key is saved on the server; runs started from now on use it."


def remove_server_key() -> None:
    """Forget the key saved on the server."""
    accounts.server_keys(services.store_location()).remove()
    services.clear_checks()
    st.session_state[MESSAGE] = "The key saved on the server is removed."


def server_key_form() -> None:
    """Replace or remove the key saved on the server (admins only reach the Settings page)."""
    st.caption(
        "A key saved here is kept on the server, in the database, for every account's runs. It is shown "
        "back masked only and never written to a run, the settings file, an export or a log. Without one, "
        "`OPENAI_API_KEY` in `.streamlit/secrets.toml` or the environment is used."
    )
    saved = services.saved_api_key() is not None
    with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
        st.text_input("API key", type="password", key=INPUT, width=360)
        st.button("Save on the server", key="set_save_server_key", on_click=save_server_key)
        if saved:
            st.button("Remove the saved key", key="set_remove_server_key", on_click=remove_server_key)
