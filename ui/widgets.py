"""Widgets shared by the pages: text formatting, status badges, numbering, branch details, totals.

Everything that came from the web or from the LLM reading the web (titles, snippets, findings,
syntheses, questions the LLM proposed) is untrusted: plain text goes through `escape_markdown`,
the LLM's Markdown through `clean_llm_markdown`, and only absolute http(s) URLs become links.
Anything that looks like an API key is redacted on the way, as in the downloads.
No widget here uses `unsafe_allow_html`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import streamlit as st

from research_core.output.quotes import finding_quote, quote_markdown
from research_core.runs.rows import BranchRow
from research_core.schemas import Finding, LogEntry, Source
from research_core.sources.labels import reading_label, reasons_text
from research_core.text.citations import cited_source_ids, global_numbering, markers_to_numbered
from research_core.text.markdown_fences import scan_fences
from research_core.text.sanitize import clean_llm_markdown, escape_markdown, redact_secrets, safe_link
from research_core.tree import BranchTree

RUN_STATUS: dict[str, tuple[str, str, str]] = {
    # status: (label, badge colour, icon)
    "created": ("Starting", "gray", ":material/hourglass_empty:"),
    "queued": ("Queued for a worker", "gray", ":material/schedule:"),
    "running": ("Running", "blue", ":material/autorenew:"),
    "awaiting_review": ("Plan ready for review", "violet", ":material/rate_review:"),
    "awaiting_step": ("Paused after a branch", "orange", ":material/pause_circle:"),
    "completed": ("Completed", "green", ":material/check_circle:"),
    "completed_with_fallback": ("Completed with fallback report", "orange", ":material/check_circle:"),
    "failed": ("Failed", "red", ":material/error:"),
    "interrupted": ("Interrupted", "orange", ":material/pause:"),
    "cancelled": ("Cancelled", "gray", ":material/cancel:"),
}

BRANCH_ICONS: dict[str, str] = {
    "pending": ":material/radio_button_unchecked:",
    "researching": ":material/progress_activity:",
    "completed": ":material/check_circle:",
    "skipped": ":material/block:",
    "failed": ":material/error:",
}


# ---- text ---------------------------------------------------------------------------------------


def esc(text: Any) -> str:
    """Untrusted text as one literal line of Markdown, key-like strings redacted."""
    return escape_markdown(redact_secrets("" if text is None else str(text)))


def clean_md(text: str | None, top_heading: int = 4) -> str:
    """The LLM's Markdown with anything that could act on the reader removed.

    Its headings are shifted so the largest becomes level `top_heading`, below the page's own;
    key-like strings are redacted.
    """
    return demote_headings(clean_llm_markdown(redact_secrets(text or "")), top_heading)


_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")


def demote_headings(md: str, top: int = 4) -> str:
    """Shift ATX headings (outside code fences) so the largest one is level `top` (at most 6)."""
    lines = md.split("\n")
    code, _open = scan_fences(lines)
    headings = [(i, m) for i, line in enumerate(lines) if not code[i] and (m := _HEADING.match(line))]
    if not headings:
        return md
    shift = max(0, top - min(len(m.group(2)) for _, m in headings))
    if shift:
        for i, m in headings:
            lines[i] = m.group(1) + "#" * min(6, len(m.group(2)) + shift) + lines[i][m.end() :]
    return "\n".join(lines)


def shorten(text: str, width: int = 80) -> str:
    """`text` on one line, cut at a word boundary to at most `width` characters."""
    return textwrap.shorten(" ".join(str(text).split()), width=width, placeholder=" …")


def source_link(title: str, url: str, fallback: str = "source") -> str:
    """A Markdown link for an http(s) source, otherwise its escaped title and location as text."""
    label = esc(shorten(title or "", 90)) or esc(fallback)
    link = safe_link(url or "")
    if link:
        return f"[{label}](<{link}>)"
    location = esc(shorten(url or "", 90))
    return f"{label} ({location})" if location else label


def plural(count: int, word: str) -> str:
    """`1 iteration`, `2 iterations`."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def format_time(timestamp: str | None) -> str:
    """An ISO timestamp as `YYYY-MM-DD HH:MM` (UTC), or an empty string."""
    if not timestamp:
        return ""
    try:
        return datetime.fromisoformat(timestamp).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return str(timestamp)[:16]


def format_cost(usd: float | None) -> str:
    """Dollars with enough digits for small runs."""
    if usd is None:
        return "–"
    if usd == 0:
        return "$0"
    if usd < 0.001:
        return "<$0.001"
    return f"${usd:.3f}" if usd < 1 else f"${usd:.2f}"


def usd_amount(usd: float | None) -> str:
    """A dollar amount without the sign, short enough for a metric: `0.0007`, `0.012`, `3.20`."""
    if usd is None:
        return "–"
    if usd < 0.01:
        return f"{usd:.4f}"
    return f"{usd:.3f}" if usd < 1 else f"{usd:.2f}"


def format_duration(seconds: float | None) -> str:
    """Seconds as `42 s`, `3 min 5 s` or `1 h 2 min`."""
    if seconds is None:
        return "–"
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {(s % 3600) // 60} min"


# ---- status ---------------------------------------------------------------------------------------


def status_label(status: str) -> str:
    """The human label of a run status."""
    return RUN_STATUS.get(status, (status.replace("_", " ").capitalize(), "gray", ""))[0]


def status_badge(status: str) -> None:
    """A coloured badge for a run status."""
    label, color, icon = RUN_STATUS.get(status, (status, "gray", ""))
    st.badge(label, color=color, icon=icon or None)  # type: ignore[arg-type]


def show_warnings(warnings: Iterable[str]) -> None:
    """Each distinct warning once."""
    for warning in dict.fromkeys(w for w in warnings if w):
        st.warning(esc(warning), icon=":material/warning:")


# ---- numbering and citations ---------------------------------------------------------------------


def branch_numbers(branches: Sequence[BranchRow]) -> dict[str, str]:
    """Tree numbering (1, 1.1, 2 …) of branches given in tree order."""
    return BranchTree({b.id: b for b in branches}, [b.id for b in branches]).numbers()


def citation_numbering(branches: Sequence[BranchRow]) -> dict[str, int]:
    """The global [n] numbering of the sources cited by the branch syntheses, in tree order."""
    return global_numbering(b.synthesis or "" for b in branches)


# ---- one branch ---------------------------------------------------------------------------------------


def pages_caption(branch: BranchRow) -> str:
    """How many of a branch's web results were read as pages, and why the others kept their snippet."""
    read, failed = branch.pages_read, branch.pages_failed
    if not read and not failed:
        return ""
    text = f"Pages read: {read} of {read + failed}"
    reasons = branch.pages_not_read
    if failed:
        text += " · snippet only: " + (esc(reasons_text(reasons)) if reasons else str(failed))
    return text


def reading_mark(source: Source) -> str:
    """` · page read` or ` · snippet only` for a web source, nothing for a library document."""
    label = reading_label(source.backend, source.read)
    return f" · *{label}*" if label else ""


def findings_markdown(
    findings: Sequence[Finding],
    sources_by_id: Mapping[str, Source],
    numbering: Mapping[str, int],
) -> str:
    """Findings as a Markdown list with confidence, their sources as links and, under each, the quote
    of its source it rests on (with a link to the quote's place on the page) when it has one."""
    lines = []
    for f in findings:
        refs = []
        for sid in f.source_ids:
            source = sources_by_id.get(sid)
            if source is None:
                continue
            number = numbering.get(sid)
            prefix = f"[{number}] " if number else ""
            refs.append(prefix + source_link(source.title, source.url) + reading_mark(source))
        line = f"- **{f.confidence:.2f}** · {esc(f.text)}"
        if refs:
            line += "  \n  " + " · ".join(refs)
        quote = finding_quote_markdown(f)
        if quote:
            line += "\n  > " + quote
        lines.append(line)
    return "\n".join(lines)


def finding_quote_markdown(finding: Finding) -> str:
    """A finding's quote as inline Markdown (`"text" — link`, escaped, key-like strings redacted), or ""."""
    quote = finding_quote(finding)
    return redact_secrets(quote_markdown(quote)) if quote is not None else ""


def cited_sources_markdown(text: str, sources_by_id: Mapping[str, Source], numbering: Mapping[str, int]) -> str:
    """The sources a synthesis cites, as a numbered Markdown list."""
    cited = sorted((sid for sid in cited_source_ids(text) if sid in numbering), key=numbering.__getitem__)
    lines = []
    for sid in cited:
        source = sources_by_id.get(sid)
        if source is not None:
            lines.append(f"\\[{numbering[sid]}\\] {source_link(source.title, source.url)}")
    return "  \n".join(lines)


def reasoning_timeline(entries: Sequence[LogEntry]) -> None:
    """Log entries with the model's reasoning, oldest first, as a compact timeline."""
    shown = [e for e in entries if e.reasoning or e.kind in ("fallback", "warning", "budget")]
    if not shown:
        st.caption("No reasoning notes yet.")
        return
    for e in shown:
        st.markdown(f"`{esc(e.timestamp[11:19])}` **{esc(e.node)}** · {esc(e.message)}")
        if e.reasoning:
            st.caption(esc(e.reasoning))


def branch_details(
    branch: BranchRow,
    number: str,
    sources_by_id: Mapping[str, Source],
    numbering: Mapping[str, int],
    log: Sequence[LogEntry],
    *,
    key: str,
) -> None:
    """One branch in an expander: budget, findings with sources, synthesis and reasoning notes.

    The expander is keyed, so a reader's open or closed choice survives the live view's redraws
    even when the branch's status (and so its icon) changes.
    """
    status = branch.status
    label = f"{number} · {shorten(branch.question_text, 100)}"
    with st.expander(esc(label), icon=BRANCH_ICONS.get(status), key=key):
        used, allocated = branch.iteration_count, branch.allocated_iterations
        facts = [status, f"priority {branch.priority:.2f}"]
        if branch.confidence is not None:
            facts.append(f"confidence {branch.confidence:.2f}")
        st.caption(" · ".join(facts))
        pages = pages_caption(branch)
        if pages:
            st.caption(pages)
        if allocated:
            st.progress(min(1.0, used / allocated), text=f"{used} of {plural(allocated, 'iteration')}")
        if branch.stop_reason:
            st.caption(f"Stopped: {esc(branch.stop_reason)}")
        synthesis = branch.synthesis
        if synthesis:
            st.markdown("**Answer**")
            st.markdown(clean_md(markers_to_numbered(synthesis, numbering)))
            cited = cited_sources_markdown(synthesis, sources_by_id, numbering)
            if cited:
                st.markdown(cited)
        st.markdown(f"**Findings** ({len(branch.findings)})")
        if branch.findings:
            st.markdown(findings_markdown(branch.findings, sources_by_id, numbering))
        else:
            st.caption("No findings yet.")
        st.markdown("**Reasoning notes**")
        reasoning_timeline([e for e in log if e.branch == branch.id])


# ---- totals --------------------------------------------------------------------------------------------


def totals_row(values: Sequence[tuple[str, str]]) -> None:
    """Bordered metrics side by side, wrapping onto a new row where the screen is too narrow for them."""
    with st.container(horizontal=True, gap="small"):
        for label, value in values:
            st.metric(label, value, border=True, width="stretch")
