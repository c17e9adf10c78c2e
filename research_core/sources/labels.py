"""How reading went, in words for people: per source (page or snippet) and per reason a page was not read.

Shared by the run log, the workbench and the exports; no dependencies, so any of them can import it.
"""

from __future__ import annotations

from collections.abc import Mapping

# Why a page was not read (the `reason` of FetchError, ExtractError and the reader), for people.
REASON_LABELS: dict[str, str] = {
    "bad_url": "not a valid URL",
    "refused_address": "private address refused",
    "dns": "host not found",
    "connect": "connection failed",
    "timeout": "too slow",
    "http_status": "HTTP error",
    "too_many_redirects": "too many redirects",
    "too_big": "too big",
    "not_html_or_pdf": "not HTML or PDF",
    "encoding": "unsupported encoding",
    "stopped": "stopped",
    "empty": "no readable text",
    "unreadable": "unreadable",
    "no_match": "nothing on the question",
    "error": "reading failed",
}


def reason_label(reason: str) -> str:
    """A reason code in words ("too_big" -> "too big")."""
    return REASON_LABELS.get(reason, reason.replace("_", " "))


def reading_label(backend: str, read: str) -> str:
    """How a source's text was obtained: "page read", "snippet only", or "" for library documents."""
    if backend == "library":
        return ""
    return "page read" if read == "page" else "snippet only"


def reasons_text(reasons: Mapping[str, int]) -> str:
    """`{"timeout": 2, "too_big": 1}` -> "too big 1, too slow 2" (sorted by label)."""
    return ", ".join(f"{label} {n}" for label, n in sorted((reason_label(r), int(n)) for r, n in reasons.items()))
