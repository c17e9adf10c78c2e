"""Credentials written into a configured service URL live in this process's memory, never in storage.

A SearXNG URL may carry `user:password@` or a `?token=...`. What is stored (a run's settings and
checkpoints, the workbench's settings file) and shown (messages, logs, exports) is the URL without
them, as `strip_url_secrets` makes it, the same rule as the LLM's base URL. `remember` keeps the
full URL in memory under that public form; `with_credentials` gives it back to whoever connects.
A process that never saw the full URL (a resume in a new terminal, a restarted workbench) gets the
credentials from the environment (`ARBOR_SEARXNG_URL`) when it names the same instance.
"""

from __future__ import annotations

import os
import threading

from research_core.text.sanitize import strip_url_secrets

CREDENTIAL_ENV = ("ARBOR_SEARXNG_URL",)

_FULL: dict[str, str] = {}
_LOCK = threading.Lock()


def public_url(url: str) -> str:
    """`url` without credentials and without a trailing slash: what is stored and shown."""
    return strip_url_secrets(url).rstrip("/")


def remember(url: str) -> str:
    """Keep `url`'s credentials in memory; returns the URL without them (the one to store)."""
    public = public_url(url)
    if public != url.rstrip("/"):
        with _LOCK:
            _FULL[public] = url
    return public


def with_credentials(public: str | None) -> str | None:
    """The URL to connect to: `public` with the credentials this process was given for it, if any."""
    if not public:
        return public
    with _LOCK:
        known = _FULL.get(public)
    if known is not None:
        return known
    for name in CREDENTIAL_ENV:
        value = os.environ.get(name, "").strip().rstrip("/")
        if value and public_url(value) == public:
            return value
    return public
