"""Process-wide services of the workbench: the runner, the document library, reachability checks.

A `Runner` is cached per server process (keyed by database path, LLM settings, pricing and a
fingerprint of the API key), so a run belongs to the server, not to a browser tab: closing the
tab does not stop it and any session can reopen it. Every runner ever created in this process is
remembered, so "is this run being driven right now?" has one answer whichever settings a session
uses.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
import weakref
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import streamlit as st

from research_core.accounts.access import RunRights, UserRuns
from research_core.configuration import OPENAI_DEFAULT_BASE_URL, LLMSettings
from research_core.db import default_db_path
from research_core.errors import ArborError
from research_core.llm import local_model
from research_core.runs.compare import CompareJobs
from research_core.runs.heap import freeze_startup_heap
from research_core.runs.runner import Runner
from research_core.search import registry
from research_core.search.library import DocumentLibrary
from research_core.storage.location import StoreLocation, locate
from research_core.text.sanitize import strip_url_secrets, strip_url_secrets_in_text
from ui import accounts
from ui.settings_store import AppSettings, load_settings

logger = logging.getLogger(__name__)

SESSION_API_KEY = "session_api_key"
LLM_CHECK_TIMEOUT_S = 3.0


# ---- paths and settings ---------------------------------------------------------------------


def db_path() -> Path:
    """The SQLite file: `$ARBOR_DB`, else ./data/arbor.db (absolute); the settings file lives next to it."""
    return default_db_path().resolve()


def store_location() -> StoreLocation:
    """Where runs, checkpoints and the page cache live: `ARBOR_DATABASE_URL`, else the SQLite file `db_path()`."""
    location = locate(None)
    return location if location.is_postgres else StoreLocation(path=db_path())


def app_settings() -> AppSettings:
    """The current settings (defaults, environment, saved file)."""
    return load_settings(db_path())


def _secret_key() -> str | None:
    try:
        value = st.secrets.get("OPENAI_API_KEY")
    except Exception:  # no secrets file, or an unreadable one
        return None
    return str(value) if value else None


def saved_api_key() -> str | None:
    """The API key an admin saved on the server (in the database), if any."""
    try:
        return accounts.server_keys(store_location()).get()
    except ArborError:  # an unreachable database: the other sources still apply
        return None


def resolve_api_key() -> tuple[str | None, str]:
    """The API key and where it comes from: this session, the server, secrets.toml, the environment, or nowhere."""
    session_key = st.session_state.get(SESSION_API_KEY)
    if session_key:
        return str(session_key), "this session"
    saved = saved_api_key()
    if saved:
        return saved, "saved on the server by an admin"
    secret = _secret_key()
    if secret:
        return secret, ".streamlit/secrets.toml"
    env = os.environ.get("OPENAI_API_KEY")
    if env:
        return env, "environment (OPENAI_API_KEY)"
    return None, "not set"


def _fingerprint(secret: str | None) -> str:
    return hashlib.sha256((secret or "").encode()).hexdigest()[:16]


# ---- progress of the embedded model and other slow starts ------------------------------------


@dataclass
class ProgressFeed:
    """Progress messages from the engine (embedded model assembly and start), newest last."""

    messages: deque[tuple[float, str]] = field(default_factory=lambda: deque(maxlen=50))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def append(self, message: str) -> None:
        """Record one message (called from the runner's threads)."""
        with self._lock:
            self.messages.append((time.time(), message))

    def since(self, t: float) -> list[str]:
        """Messages recorded after time `t`."""
        with self._lock:
            return [m for ts, m in self.messages if ts >= t]


def timestamp(iso: str | None) -> float:
    """Seconds since the epoch of an ISO timestamp (0 when missing or unreadable)."""
    if not iso:
        return 0.0
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


@st.cache_resource(show_spinner=False)
def progress_feed() -> ProgressFeed:
    """The process-wide progress feed."""
    return ProgressFeed()


@st.cache_resource(show_spinner=False)
def _all_runners() -> weakref.WeakSet[Runner]:
    return weakref.WeakSet()


# ---- the runner ------------------------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=8)
def _runner(
    db: str, llm_json: str, pricing_json: str, key_fingerprint: str, _api_key: str | None, _location: StoreLocation
) -> Runner:
    """The runner on the database shown as `db` (`_location`, not hashed: a URL's password stays out of the key)."""
    freeze_startup_heap()
    pricing = {k: (float(v[0]), float(v[1])) for k, v in json.loads(pricing_json).items()}
    runner = Runner(
        _location,
        llm_settings=LLMSettings.model_validate_json(llm_json),
        api_key=_api_key,
        pricing=pricing,
        progress=progress_feed().append,
    )
    _all_runners().add(runner)
    return runner


def as_signed_in(runner: Runner) -> Runner | UserRuns:
    """The runner as the signed-in account may use it; the runner itself without accounts (the local user)."""
    return UserRuns(runner, accounts.signed_in()) if accounts.accounts_on() else runner


def get_runner(settings: AppSettings | None = None) -> Runner | UserRuns:
    """The runner of this server process for the current database, settings and key, as the signed-in user's."""
    settings = settings or app_settings()
    key, _source = resolve_api_key()
    location = store_location()
    runner = _runner(
        location.shown,
        settings.llm_settings().model_dump_json(),
        json.dumps(settings.pricing, sort_keys=True),
        _fingerprint(key),
        key,
        location,
    )
    return as_signed_in(runner)


def runner_with_llm(llm: Any) -> Runner | UserRuns:
    """A runner like `get_runner()` but with the given LLM settings (a run's own, to resume it)."""
    settings = app_settings()
    key, _source = resolve_api_key()
    location = store_location()
    runner = _runner(
        location.shown,
        llm.model_dump_json(),
        json.dumps(settings.pricing, sort_keys=True),
        _fingerprint(key),
        key,
        location,
    )
    return as_signed_in(runner)


def rights(run_id: str) -> RunRights | None:
    """What the signed-in account may do with a run it can read; None without accounts (everything, as always).

    Raises the run API's RunError, the same for a missing run and one the account may not read.
    """
    runner = get_runner()
    return runner.rights(run_id) if isinstance(runner, UserRuns) else None


def run_is_active(run_id: str) -> bool:
    """True while any runner of this process drives the run."""
    return any(r.is_active(run_id) for r in list(_all_runners()))


# ---- the document library ----------------------------------------------------------------------


def get_library() -> DocumentLibrary:
    """A DocumentLibrary on the current database (the SQLite file, or PostgreSQL with `ARBOR_DATABASE_URL`)."""
    return DocumentLibrary(store_location())


# ---- reachability -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reachability:
    """Whether a service answered, and a one-line message for the user."""

    ok: bool
    message: str


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuse redirects: urllib would send the Authorization header on to wherever they point."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


_NO_REDIRECT_OPENER = urllib.request.build_opener(_NoRedirect)


def check_llm_endpoint(base_url: str, api_key: str | None, timeout_s: float = LLM_CHECK_TIMEOUT_S) -> Reachability:
    """GET {base_url}/models with a short timeout; the key goes to that URL only, never to a redirect."""
    url = base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if api_key:
        request.add_header("Authorization", f"Bearer {api_key}")
    try:
        with _NO_REDIRECT_OPENER.open(request, timeout=timeout_s) as response:
            body = json.loads(response.read(200_000) or b"{}")
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400:
            target = strip_url_secrets(exc.headers.get("Location") or "another address")
            return Reachability(
                False,
                f"The endpoint redirects (HTTP {exc.code}) to {target}; the key was not sent there. "
                "Save the final address as the base URL if you trust it.",
            )
        if exc.code in (401, 403):
            return Reachability(False, f"The endpoint refused the API key (HTTP {exc.code}). Check the key.")
        return Reachability(False, f"The endpoint answered HTTP {exc.code}.")
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = strip_url_secrets_in_text(str(getattr(exc, "reason", exc)))
        return Reachability(False, f"Unreachable: {reason}.")
    except ValueError:
        return Reachability(True, "Reachable (the model list was not JSON).")
    models = [m.get("id") for m in body.get("data", []) if isinstance(m, dict)] if isinstance(body, dict) else []
    shown = ", ".join(str(m) for m in models[:5]) or "no models listed"
    return Reachability(True, f"Reachable; models: {shown}.")


def check_embedded_model() -> Reachability:
    """Whether the embedded model is installed (it starts on the first run that needs it)."""
    address = local_model.running_shared_server()
    if address is not None:
        return Reachability(True, f"Running at {address}.")
    try:
        local_model.installed_part_paths()
    except local_model.LocalModelError as exc:
        return Reachability(False, exc.user_message)
    return Reachability(True, "Installed; it starts on the first run (the first start takes a minute or two).")


@st.cache_data(ttl=30, show_spinner=False)
def cached_llm_check(provider: str, base_url: str | None, key_fingerprint: str, _api_key: str | None) -> Reachability:
    """The LLM check, cached for 30 seconds per endpoint and key."""
    if provider == "local":
        return check_embedded_model()
    return check_llm_endpoint(base_url or OPENAI_DEFAULT_BASE_URL, _api_key)


def llm_status() -> Reachability:
    """The (cached) reachability of the LLM of the *saved* settings.

    The settings are read here, not taken from the caller, so the API key only ever goes to an
    endpoint the user has saved, never to a URL still being typed on the Settings page.
    """
    settings = app_settings()
    key, _ = resolve_api_key()
    return cached_llm_check(settings.provider, settings.base_url, _fingerprint(key), key)


@st.cache_data(ttl=60, show_spinner=False)
def cached_search_check(
    names: tuple[str, ...], db: str, searxng_url: str | None = None, _location: StoreLocation | None = None
) -> dict[str, Reachability]:
    """Reachability of each search backend, cached for a minute; the library in `_location` (shown as `db`)."""
    out: dict[str, Reachability] = {}
    for name in names:
        try:
            backends = registry.build_backends([name], _location or Path(db), searxng_url=searxng_url)
            if not backends:
                out[name] = Reachability(False, "Unknown backend.")
                continue
            ok, message = registry.check_backend(backends[0])
            if message == registry.EMPTY_LIBRARY_MESSAGE:
                message = "Empty: add documents on the Library page."
            out[name] = Reachability(bool(ok), str(message)[:1].upper() + str(message)[1:])
        except ArborError as exc:  # a backend that cannot even be built is simply unreachable
            out[name] = Reachability(False, exc.user_message or str(exc))
        except Exception as exc:
            out[name] = Reachability(False, str(exc))
    return out


def search_status(names: list[str], searxng_url: str | None = None) -> dict[str, Reachability]:
    """The (cached) reachability of the given search backends (SearXNG at `searxng_url`)."""
    location = store_location()
    return cached_search_check(tuple(names), location.shown, searxng_url, location)


def clear_checks() -> None:
    """Forget cached reachability results (the Settings page's re-check)."""
    cached_llm_check.clear()
    cached_search_check.clear()


# ---- comparisons ------------------------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def compare_jobs() -> CompareJobs:
    """The process-wide comparisons, running and done.

    Like runs, a comparison belongs to the server, not the tab: a page rerun or another session
    finds it by its pair of run ids.
    """
    return CompareJobs()
