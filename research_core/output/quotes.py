"""The quotes behind a report's citations: what a reader checks a citation against.

Each finding carries `quote`, the verbatim span of its source's passage it rests on, and
`location`, the source's address with a text fragment (`#:~:text=…`) that opens the page at the
quote. A finding cites one source, its first `source_ids` entry; the quotes of the findings that
cite a source are that source's quotes. Runs from before quotes existed have empty ones: they give
no quotes, and every view of them shows what it showed before.

Quotes are web text: the Markdown helpers here escape them, and only http(s) locations become links.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from research_core.runs.records import RunResult
from research_core.schemas import Finding
from research_core.text.sanitize import escape_markdown, safe_link, safe_url

QUOTE_CHARS = 300  # a quote shown in a tooltip or a sources list is clipped to this
HOVER_QUOTES = 2  # a citation's tooltip shows at most this many quotes
# A text fragment as the engine writes it: `:~:text=` and percent-encoded words, start and end.
_TEXT_FRAGMENT = re.compile(r":~:text=[A-Za-z0-9%._~\-]+(?:,[A-Za-z0-9%._~\-]+)*")


@dataclass(frozen=True)
class SourceQuote:
    """One finding's quote of its source: the verbatim text, where it is, and which finding it backs."""

    text: str
    location: str
    finding_id: str


QuotesBySource = Mapping[str, Sequence[SourceQuote]]  # source id -> the quotes of the findings citing it


def result_findings(result: RunResult) -> list[Finding]:
    """Every finding of the run, branch by branch in the order of `sub_questions`."""
    return [f for sq in result.sub_questions for f in sq.findings]


def finding_quote(finding: Finding) -> SourceQuote | None:
    """The finding's quote (text and location stripped), or None when its quote is blank or missing."""
    text = finding.quote.strip()
    if not text:
        return None
    return SourceQuote(text, finding.location.strip(), finding.id)


def quotes_by_source(findings: Iterable[Finding]) -> dict[str, list[SourceQuote]]:
    """Source id -> the quotes of the findings citing it, in the findings' order.

    A finding's quote belongs to its first cited source; a finding without a quote (blank or
    missing) or without a source gives none. Every finding's quote is kept, even a repeated text.
    """
    out: dict[str, list[SourceQuote]] = {}
    for finding in findings:
        quote = finding_quote(finding)
        if quote is not None and finding.source_ids:
            out.setdefault(finding.source_ids[0], []).append(quote)
    return out


def distinct_quotes(quotes: Iterable[SourceQuote]) -> list[SourceQuote]:
    """The quotes with each text once (compared with whitespace collapsed), the first one kept."""
    seen: dict[str, SourceQuote] = {}
    for quote in quotes:
        seen.setdefault(" ".join(quote.text.split()), quote)
    return list(seen.values())


def clip_quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` on one line, cut at a word boundary to at most `limit` characters, ending in " …" when cut."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    head = line[: max(1, limit - 2)]
    if " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip() + " …"


def citation_hover(quotes: Sequence[SourceQuote]) -> str:
    """A citation's tooltip: up to `HOVER_QUOTES` distinct quotes, clipped, each in “ ”, one per line.

    When the source has more, a last line says how many more the sources list shows; "" when it has none.
    """
    shown = distinct_quotes(quotes)
    lines = [f"“{clip_quote(q.text)}”" for q in shown[:HOVER_QUOTES]]
    if len(shown) > HOVER_QUOTES:
        lines.append(f"(+{len(shown) - HOVER_QUOTES} more under Sources)")
    return "\n".join(lines)


def shown_location(location: str) -> str | None:
    """A location that is not a web address, fit to be shown as text, or None.

    Its address must pass `safe_url` (a local path or a library id) and its fragment, if any, be a
    percent-encoded text fragment (`#:~:text=start,end`), whose colons `safe_url` alone would refuse.
    """
    base, hash_sign, fragment = location.partition("#")
    if hash_sign and not _TEXT_FRAGMENT.fullmatch(fragment):
        return None
    shown = safe_url(base) if base else None
    return shown + hash_sign + fragment if shown else None


def location_markdown(location: str) -> str:
    """Where a quote is, as inline Markdown: an http(s) location as a link, a local path or library id
    (`shown_location`) as escaped text, anything else (another scheme, nothing) as ""."""
    link = safe_link(location)
    if link is not None:
        return f"[at the source](<{link}>)"
    shown = shown_location(location) if location else None
    return escape_markdown(shown) if shown else ""


def quote_markdown(quote: SourceQuote) -> str:
    """One quote as inline Markdown: `"text" — where`, the text clipped and escaped so it renders literally."""
    where = location_markdown(quote.location)
    text = f'"{escape_markdown(clip_quote(quote.text))}"'
    return f"{text} — {where}" if where else text


def quotes_json(quotes: Iterable[SourceQuote]) -> list[dict[str, str]]:
    """The quotes as JSON objects `{"text", "location", "finding_id"}`, the text whole (not clipped)."""
    return [{"text": q.text, "location": q.location, "finding_id": q.finding_id} for q in quotes]
