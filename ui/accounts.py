"""Who uses the workbench: the sign-in gate, the signed-in user, and the sidebar's account box.

The rules (`require_user`, run by app.py before any page):
- No accounts and no OIDC provider (`[auth]` in .streamlit/secrets.toml): one local user, no sign-in,
  everything exactly as before accounts existed.
- An OIDC provider and no accounts: Streamlit's own `st.login`, then everyone signed in is that one
  local user, as before accounts existed.
- Accounts: nobody sees anything but the sign-in page until signed in, with a local account's name
  and password, or through the OIDC provider when one is configured (the account is the one named
  by the e-mail address the provider gives). The account is read again on every page run, so a
  changed role or a removed account takes effect at once.
The signed-in account lives in this browser session's server-side state only (`SESSION_USER`);
pages read it through `signed_in`, and `ui.services.get_runner` hands them the run API as that
account may use it (`research_core.accounts.access.UserRuns`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

import streamlit as st

from research_core.accounts.keys import ServerKeys
from research_core.accounts.records import LOCAL_USER, User
from research_core.accounts.store import AccountStore
from research_core.storage.location import StoreLocation
from ui.widgets import esc

SESSION_USER = "arbor_user"  # the name of the account signed in on this session (local sign-in)
ACTING = "arbor_acting_user"  # the account pages act as this page run (None: the local user, no accounts)
MAX_FAILURES = 5  # failed sign-ins with one name ...
FAILURE_WINDOW_S = 300.0  # ... within this many seconds make that name wait


# ---- the stores, one per database and server process -----------------------------------------


@st.cache_resource(show_spinner=False, max_entries=8)
def _account_store(shown: str, _location: StoreLocation) -> AccountStore:
    return AccountStore(_location)


@st.cache_resource(show_spinner=False, max_entries=8)
def _server_keys(shown: str, _location: StoreLocation) -> ServerKeys:
    return ServerKeys(_location)


def account_store(location: StoreLocation) -> AccountStore:
    """The accounts of the database at `location` (this process's store on it)."""
    return _account_store(location.shown, location)


def server_keys(location: StoreLocation) -> ServerKeys:
    """The API keys saved on the server in the database at `location`."""
    return _server_keys(location.shown, location)


class FailedSignIns:
    """Recent failed sign-ins by name, process-wide: a name with too many waits before it is tried again."""

    def __init__(self) -> None:
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, name: str, now: float) -> deque[float]:
        times = self._times.setdefault(name, deque(maxlen=MAX_FAILURES))
        while times and now - times[0] > FAILURE_WINDOW_S:
            times.popleft()
        return times

    def blocked(self, name: str) -> bool:
        """Whether `name` failed `MAX_FAILURES` times within `FAILURE_WINDOW_S`."""
        with self._lock:
            return len(self._recent(name, time.monotonic())) >= MAX_FAILURES

    def failed(self, name: str) -> None:
        """Count one failed sign-in with `name`."""
        with self._lock:
            self._recent(name, time.monotonic()).append(time.monotonic())

    def succeeded(self, name: str) -> None:
        """Forget the failures of `name`."""
        with self._lock:
            self._times.pop(name, None)


@st.cache_resource(show_spinner=False)
def failed_sign_ins() -> FailedSignIns:
    """The process's record of failed sign-ins."""
    return FailedSignIns()


# ---- OIDC through Streamlit --------------------------------------------------------------------


def oidc_configured() -> bool:
    """Whether .streamlit/secrets.toml has an `[auth]` section (Streamlit's OIDC login)."""
    try:
        return "auth" in st.secrets
    except Exception:  # no secrets file, or an unreadable one
        return False


def oidc_identity() -> str | None:
    """The signed-in OIDC user's e-mail address (else their subject id); None when nobody is signed in."""
    try:
        if not st.user.is_logged_in:
            return None
        value = st.user.get("email") or st.user.get("sub")
    except (AttributeError, KeyError):  # Streamlit without a login for this session
        return None
    return str(value) if value else None


# ---- the gate ------------------------------------------------------------------------------------


def signed_in() -> User:
    """The user this page run acts for: the signed-in account, or the local user without accounts."""
    return st.session_state.get(ACTING) or LOCAL_USER


def accounts_on() -> bool:
    """Whether this page run acts as an account (False: the local user, as without accounts)."""
    return st.session_state.get(ACTING) is not None


def allowed(rule: Callable[[User], bool]) -> bool:
    """Whether the signed-in user passes a rule of `research_core.accounts.permissions`."""
    return rule(signed_in())


def require_user(location: StoreLocation, hold_page: Callable[[], object]) -> User:
    """The user of this page run; shows the sign-in page and stops the run while nobody is signed in.

    `hold_page` is called before the sign-in page shows: it keeps the page the URL asked for (the
    app's navigation, hidden), so that page opens once the user has signed in.
    """
    store = account_store(location)
    has_accounts = store.count() > 0
    oidc = oidc_configured()
    st.session_state[ACTING] = None
    if not has_accounts:
        st.session_state.pop(SESSION_USER, None)
        if oidc and oidc_identity() is None:
            hold_page()
            sign_in_page(store, oidc=True, local=False)
        return LOCAL_USER
    user = _session_account(store, oidc, hold_page)
    if user is None:
        hold_page()
        sign_in_page(store, oidc=oidc, local=any(u.has_password for u in store.list()))
    st.session_state[ACTING] = user
    return user


def _session_account(store: AccountStore, oidc: bool, hold_page: Callable[[], object]) -> User | None:
    """The account signed in on this session (by password, or the provider's e-mail), read afresh."""
    name = st.session_state.get(SESSION_USER)
    if name:
        user = store.get(name)
        if user is not None:
            return user
        st.session_state.pop(SESSION_USER, None)  # removed meanwhile
    identity = oidc_identity() if oidc else None
    if identity is None:
        return None
    user = store.get(identity)
    if user is None:
        hold_page()
        no_account_page(identity)
    return user


def sign_in_page(store: AccountStore, *, oidc: bool, local: bool) -> None:
    """The only thing shown until someone signs in; stops the page run."""
    st.title("Arbor")
    st.write(
        "Log in to use the research workbench." if oidc and not local else "Sign in to use the research workbench."
    )
    if oidc:
        st.button("Log in", type="primary", icon=":material/login:", on_click=st.login, key="app_login")
    if local:
        local_form(store, primary=not oidc)
    st.stop()


def local_form(store: AccountStore, *, primary: bool) -> None:
    """Name and password of a local account; a success signs this session in and reruns."""
    with st.form("signin_form", border=True):
        st.markdown("**Sign in with an Arbor account**")
        name = st.text_input("Name", key="signin_name", autocomplete="username")
        password = st.text_input("Password", type="password", key="signin_password", autocomplete="current-password")
        submitted = st.form_submit_button(
            "Sign in", type="primary" if primary else "secondary", icon=":material/login:"
        )
    if not submitted:
        return
    key = name.strip().lower()
    failures = failed_sign_ins()
    if failures.blocked(key):
        st.error("Too many failed sign-ins with this name; wait a few minutes and try again.", icon=":material/lock:")
        return
    user = store.authenticate(key, password) if key and password else None
    if user is None:
        failures.failed(key)
        st.error("Wrong name or password.", icon=":material/error:")
        return
    failures.succeeded(key)
    st.session_state[SESSION_USER] = user.name
    st.rerun()


def no_account_page(identity: str) -> None:
    """A provider's user without an account here: say so, offer to log out, stop the page run."""
    st.title("Arbor")
    st.error(
        f"You are signed in as {esc(identity)}, but this workbench has no account of that name. "
        "Ask an admin to add it (python -m research_core users add NAME --role researcher --no-password).",
        icon=":material/person_off:",
    )
    st.button("Log out", icon=":material/logout:", on_click=st.logout, key="app_logout")
    st.stop()


def sign_out() -> None:
    """Sign this session out (and out of the provider, for an OIDC sign-in)."""
    by_password = bool(st.session_state.pop(SESSION_USER, None))
    st.session_state[ACTING] = None
    if not by_password and oidc_identity() is not None:
        st.logout()


def sidebar_account(user: User) -> None:
    """Who is signed in, their role, and a way out (nothing without accounts)."""
    if not accounts_on():
        return
    st.markdown(f":material/person: **{esc(user.name)}** · {user.role}")
    st.button("Sign out", icon=":material/logout:", key="app_sign_out", on_click=sign_out, type="tertiary")
