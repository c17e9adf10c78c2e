"""Settings (an admin's, with accounts): LLM endpoint and models, API key, search, pricing, default limits."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from research_core.accounts import permissions
from research_core.configuration import LOCAL_MODEL_NAME, TEMPLATE_DESCRIPTIONS, TEMPLATES, RunConfig, input_range
from ui import accounts, services, settings_form, settings_keys, state
from ui.settings_store import KNOWN_BACKENDS, AppSettings, mask_secret, save_settings, settings_path
from ui.widgets import esc


def use_session_key() -> None:
    """Keep the entered key in this session's memory only, and clear the input."""
    entered = st.session_state["set_api_key_input"].strip()
    if entered:
        st.session_state[services.SESSION_API_KEY] = entered
        st.session_state["set_message"] = "The key is used for this session."
    st.session_state["set_api_key_input"] = ""


def forget_session_key() -> None:
    """Drop the session's key."""
    st.session_state.pop(services.SESSION_API_KEY, None)


st.title("Settings")
if not accounts.allowed(permissions.may_change_settings):
    st.info("Only an admin sees and changes the settings, the LLM endpoint and its API key.", icon=":material/lock:")
    st.stop()

saved = services.app_settings()
endpoint = settings_form.endpoint_of(saved)
state.init_state(
    {
        "set_endpoint": endpoint,
        "set_base_url": saved.base_url if endpoint == "compatible" else "",
        "set_model": saved.model if saved.provider == "openai" else settings_form.DEFAULT_OPENAI_MODEL,
        "set_synthesis_model": saved.synthesis_model or "",
        "set_timeout": float(saved.timeout_s),
        "set_backends": [b for b in saved.search_backends if b in KNOWN_BACKENDS],
        "set_searxng_url": saved.searxng_url or "",
        "set_read_pages": saved.read_pages,
        "set_fetch_private": saved.fetch_private_addresses,
        "set_template": saved.template,
        "set_max_iterations": saved.max_iterations,
        "set_parallel": saved.parallel,
        "set_cost_cap": saved.max_total_cost_usd,
        "set_step_mode": saved.step_mode,
        "set_api_key_input": "",
        "set_message": None,
    }
)
if st.session_state["set_message"]:
    st.success(st.session_state["set_message"], icon=":material/check:")
    st.session_state["set_message"] = None

llm_col, status_col = st.columns([3, 2], gap="large")
with llm_col:
    st.subheader("Language model")
    st.radio(
        "Endpoint", list(settings_form.ENDPOINTS), format_func=settings_form.ENDPOINTS.__getitem__, key="set_endpoint"
    )
    chosen = st.session_state["set_endpoint"]
    if chosen == "compatible":
        st.text_input("Base URL", key="set_base_url", placeholder="http://localhost:11434/v1")
    if chosen == "local":
        st.caption(
            f"Model `{LOCAL_MODEL_NAME}`, served on this machine. The first run assembles and loads the "
            "model (about 1.1 GB), which takes a minute or two; later runs start in seconds."
        )
    else:
        m1, m2 = st.columns(2)
        m1.text_input("Working model", key="set_model", help="Plans queries, extracts findings, writes branch answers")
        m2.text_input(
            "Synthesis model",
            key="set_synthesis_model",
            placeholder="same as the working model",
            help="Writes the final report; a stronger model pays off here",
        )
    st.number_input("Timeout of one call (seconds)", min_value=5.0, max_value=3600.0, step=5.0, key="set_timeout")

    st.subheader("API key")
    key, source = services.resolve_api_key()
    st.markdown(f"Current key: `{esc(mask_secret(key))}` · from {esc(source)}")
    if accounts.accounts_on():
        settings_keys.server_key_form()
    else:
        st.caption(
            "A key entered here is kept in this browser session's memory only: it is never written to the "
            "database, the settings file or any export. For a permanent key set `OPENAI_API_KEY` in the "
            "environment or in `.streamlit/secrets.toml`."
        )
        with st.container(horizontal=True, gap="small", vertical_alignment="bottom"):
            st.text_input("API key for this session", type="password", key="set_api_key_input", width=360)
            st.button("Use for this session", key="set_use_key", on_click=use_session_key)
            if st.session_state.get(services.SESSION_API_KEY):
                st.button("Forget", key="set_forget_key", on_click=forget_session_key)

    st.subheader("Search")
    st.multiselect(
        "Search backends for new runs",
        list(KNOWN_BACKENDS),
        format_func=lambda b: KNOWN_BACKENDS.get(b, b),
        key="set_backends",
    )
    st.text_input(
        "SearXNG URL",
        key="set_searxng_url",
        placeholder="http://localhost:8888",
        help="Your SearXNG instance, with its JSON format enabled (settings.yml: search: formats: [html, json]). "
        "Credentials in it (user:password@, ?token=) are used but never saved; to keep them across restarts, "
        "put the full URL in ARBOR_SEARXNG_URL.",
    )
    st.toggle(
        "Read the pages of web results",
        key="set_read_pages",
        help="Fetch each web result a branch keeps and give the model its most relevant passages; "
        "off: the search snippets only",
    )
    st.toggle(
        "Allow reading pages on private addresses",
        key="set_fetch_private",
        help="Intranet pages (10.x, 192.168.x, localhost …). Off, such pages keep their snippet.",
    )
    cache = services.get_runner().page_cache
    cached = cache.count()
    st.caption(f"Page cache: {cached} page{'s' if cached != 1 else ''} read by earlier runs (kept 7 days).")
    if st.button("Empty the page cache", icon=":material/delete_sweep:", key="set_clear_cache", disabled=not cached):
        removed = cache.clear()
        st.session_state["set_message"] = f"Emptied the page cache ({removed} page{'s' if removed != 1 else ''})."
        st.rerun()

    st.subheader("Pricing")
    st.caption("USD per million tokens. Models not listed cost 0 and the report says so; the embedded model is free.")
    pricing_frame = pd.DataFrame(
        [{"model": m, "input": float(p[0]), "output": float(p[1])} for m, p in saved.pricing.items()],
        columns=["model", "input", "output"],
    )
    edited_pricing = st.data_editor(
        pricing_frame,
        key="set_pricing",
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_config={
            "model": st.column_config.TextColumn("model", required=True),
            "input": st.column_config.NumberColumn("input $/1M", min_value=0.0, format="%.3f", default=0.0),
            "output": st.column_config.NumberColumn("output $/1M", min_value=0.0, format="%.3f", default=0.0),
        },
    )

    st.subheader("Defaults for new research")
    st.selectbox(
        "Template",
        ["auto", *TEMPLATES],
        format_func=lambda t: f"{t.replace('_', ' ')} — {TEMPLATE_DESCRIPTIONS.get(t, '')}",
        key="set_template",
    )
    d1, d2, d3 = st.columns(3)
    d1.number_input("Max iterations", **input_range(RunConfig, "max_iterations"), step=1, key="set_max_iterations")
    d2.number_input("Branches in parallel", **input_range(RunConfig, "parallel"), step=1, key="set_parallel")
    d3.number_input(
        "Cost cap (USD)", **input_range(RunConfig, "max_total_cost_usd"), step=0.1, format="%.2f", key="set_cost_cap"
    )
    st.toggle("Step by step by default", key="set_step_mode")


def build_settings() -> AppSettings:
    """Settings from the widgets (raises ValueError or ValidationError)."""
    pricing = settings_form.pricing_from_records(edited_pricing.to_dict("records"))
    llm = settings_form.llm_fields(
        st.session_state["set_endpoint"],
        st.session_state["set_base_url"],
        st.session_state["set_model"],
        st.session_state["set_synthesis_model"],
    )
    return AppSettings(
        **llm,
        timeout_s=float(st.session_state["set_timeout"]),
        search_backends=list(st.session_state["set_backends"]),
        searxng_url=st.session_state["set_searxng_url"].strip() or None,
        read_pages=bool(st.session_state["set_read_pages"]),
        fetch_private_addresses=bool(st.session_state["set_fetch_private"]),
        pricing=pricing,
        template=st.session_state["set_template"],
        max_iterations=int(st.session_state["set_max_iterations"]),
        parallel=int(st.session_state["set_parallel"]),
        max_total_cost_usd=float(st.session_state["set_cost_cap"]),
        step_mode=bool(st.session_state["set_step_mode"]),
    )


with llm_col:
    st.divider()
    if st.button("Save settings", type="primary", icon=":material/save:", key="set_save"):
        try:
            new = build_settings()
            path = save_settings(services.db_path(), new)
        except ValidationError as exc:
            st.error(f"Not saved: {exc.errors()[0]['msg']}.", icon=":material/error:")
        except (ValueError, OSError) as exc:
            st.error(f"Not saved: {exc}", icon=":material/error:")
        else:
            services.clear_checks()
            typed = st.session_state["set_searxng_url"].strip().rstrip("/")
            kept_out = " The SearXNG URL's credentials were not saved." if typed != (new.searxng_url or "") else ""
            st.session_state["set_message"] = f"Saved to {path}. New runs use these settings.{kept_out}"
            st.rerun()
    st.caption(f"Settings file: `{settings_path(services.db_path())}` · database: `{services.db_path()}`")

with status_col:
    st.subheader("Reachability")
    st.caption("Checked with the saved settings.")
    llm = services.llm_status()
    label = "Embedded model" if saved.provider == "local" else f"LLM at {saved.endpoint_label()}"
    (st.success if llm.ok else st.error)(f"**{esc(label)}**  \n{esc(llm.message)}")
    for name, status in services.search_status(saved.search_backends, saved.searxng_url).items():
        (st.success if status.ok else st.warning)(f"**{esc(KNOWN_BACKENDS.get(name, name))}**  \n{esc(status.message)}")
    if not saved.search_backends:
        st.warning("No search backend is selected; runs would find nothing.")
    if st.button("Check again", icon=":material/refresh:", key="set_recheck"):
        services.clear_checks()
        st.rerun()
