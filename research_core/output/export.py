"""Exports of a run: a Markdown report, a standalone HTML page and the raw JSON result.

Everything in a RunResult that came from the web, or from the LLM reading the web, is
untrusted. The Markdown report escapes web text (titles, snippets, findings, warnings) and
passes the LLM's Markdown through `clean_llm_markdown`; the HTML page is rendered from that
Markdown with raw HTML disabled and then sanitised again with nh3. Citations `[n]` that
point past the source list are removed, so a report never cites a source it does not list.
Strings that look like API keys are redacted in every format.

So the reader can check a citation, each source is listed with the quotes of the findings citing
it (`research_core.output.quotes`), and in the HTML a citation's tooltip shows them.
"""

from __future__ import annotations

import html
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import nh3
import pydantic_core
from markdown_it import MarkdownIt
from markdown_it.token import Token

from research_core.output.quotes import (
    SourceQuote,
    citation_hover,
    distinct_quotes,
    quote_markdown,
    quotes_by_source,
    quotes_json,
    result_findings,
)
from research_core.runs.records import RunResult
from research_core.runs.rows import BranchRow
from research_core.schemas import Source
from research_core.sources.labels import reading_label
from research_core.text.markdown_fences import scan_fences
from research_core.text.sanitize import (
    clean_llm_markdown,
    escape_markdown,
    redact_data,
    redact_secrets,
    safe_link,
    safe_url,
    strip_control_chars,
)
from research_core.tree import BranchTree

logger = logging.getLogger(__name__)

ExportFormat = Literal["md", "html", "json", "jsonl", "pdf", "docx"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "html", "json", "jsonl", "pdf", "docx")
BINARY_FORMATS: frozenset[str] = frozenset({"pdf", "docx"})

MIME_TYPES: dict[str, str] = {
    "md": "text/markdown",
    "html": "text/html",
    "json": "application/json",
    "jsonl": "application/x-ndjson",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

_SNIPPET_CHARS = 240
_SLUG_CHARS = 60
_CITATION = re.compile(r"\[(\d{1,3})\]")
# Any bracketed number list in a finding: the LLM numbered sources per iteration, so these
# numbers mean nothing in the report; the finding's source_ids give the real citations.
_LOCAL_CITATION = re.compile(r"\s*\[\d{1,3}(?:\s*,\s*\d{1,3})*\]")
_CITATION_LIST = re.compile(r"([ \t]*)\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# What would turn a one-line text into a heading, quote, list, rule or code fence.
_LEADING_BLOCK_MARKER = re.compile(r"^(?:(\d{1,9})[.)]|[#>+\-*=_]|`{3}|~{3})")
_ATX_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")


# ---- secrets ---------------------------------------------------------------------------


def redact_result(result: RunResult) -> RunResult:
    """Return `result` with every string that looks like an API key replaced by `[redacted]`, and
    control and bidi characters removed from every string.

    Every export and every page that shows a result uses this. The result itself is returned when
    nothing needed changing.
    """
    data = result.model_dump(mode="json")
    cleaned = redact_data(data, strip_control_chars)
    redacted = redact_data(cleaned)
    if redacted != cleaned:
        logger.warning("Redacted what looks like an API key from run %s", result.run_id)
    if redacted == data:
        return result
    return RunResult.model_validate(redacted)


# ---- the report, as Markdown blocks ----------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """A piece of the report's Markdown; `cites` marks text whose `[n]` link to sources in HTML."""

    markdown: str
    cites: bool = False


@dataclass
class _Report:
    """The report in three parts, so the HTML can give each source entry an anchor.

    `quotes[i]` are the Markdown quote lines of source number i + 1 and `hovers[n]` the tooltip of
    a citation `[n]`; both are empty for a run whose findings have no quotes.
    """

    head: list[_Block] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # entry i is source number i + 1
    quotes: list[list[str]] = field(default_factory=list)
    hovers: dict[int, str] = field(default_factory=dict)
    tail: list[_Block] = field(default_factory=list)


def _scan_blocks(lines: list[str]) -> tuple[list[tuple[int, re.Match[str]]], str | None]:
    """The ATX headings outside fenced code as (line index, match), and a fence left open."""
    code, open_fence = scan_fences(lines)
    found = [(i, m) for i, line in enumerate(lines) if not code[i] and (m := _ATX_HEADING.match(line))]
    return found, open_fence


def _fit_into_report(md: str, top_level: int) -> str:
    """Re-level the LLM's headings so its highest one sits at `top_level` (at most h6), and
    close a code fence it left open, which would otherwise swallow the rest of the report."""
    lines = md.split("\n")
    headings, open_fence = _scan_blocks(lines)
    if headings:
        highest = min(len(h.group(2)) for _, h in headings)
        for i, heading in headings:
            level = min(6, len(heading.group(2)) - highest + top_level)
            lines[i] = heading.group(1) + "#" * level + lines[i][heading.end() :]
    if open_fence is not None:
        lines.append(open_fence)
    return "\n".join(lines)


def drop_missing_citations(text: str, source_count: int) -> tuple[str, int]:
    """Remove citations of numbers outside 1..source_count; return the text and how many went.

    Like `citations.drop_unknown_numbers`, but a citation removed entirely takes the blank
    before it along, so "fabricated [9]." becomes "fabricated.".
    """
    removed = 0

    def repl(match: re.Match[str]) -> str:
        nonlocal removed
        kept = []
        for part in match.group(2).split(","):
            n = int(part.strip())
            if 1 <= n <= source_count:
                kept.append(f"[{n}]")
            else:
                removed += 1
        return match.group(1) + "".join(kept) if kept else ""

    return _CITATION_LIST.sub(repl, text), removed


def _llm_markdown(md: str | None, source_count: int, top_level: int, where: str) -> str:
    """The LLM's Markdown made safe, with citations of missing sources removed."""
    text, removed = drop_missing_citations(clean_llm_markdown(md or ""), source_count)
    if removed:
        logger.info("Removed %d citation(s) of sources that do not exist from %s", removed, where)
    return _fit_into_report(text.strip(), top_level)


def _inline_llm_markdown(text: str) -> str:
    """A short piece of LLM Markdown (a finding) made safe and kept on one line.

    Its own `[n]` citations are dropped: they used the numbering of one research iteration.
    """
    cleaned = _LOCAL_CITATION.sub("", clean_llm_markdown(text))
    line = " ".join(cleaned.split())
    marker = _LEADING_BLOCK_MARKER.match(line)
    if marker:
        cut = len(marker.group(1) or "")
        line = line[:cut] + "\\" + line[cut:]
    return line


def _number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "n/a"
    return f"{value:.2f}"


def _count(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return str(int(value))


def _format_date(timestamp: str) -> str:
    try:
        moment = datetime.fromisoformat(timestamp)
    except (TypeError, ValueError):
        return escape_markdown(str(timestamp)) or "unknown"
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _format_duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _format_cost(usd: float) -> str:
    return f"${usd:.4f}" if 0 < usd < 1 else f"${usd:.2f}"


def _metadata_line(result: RunResult) -> str:
    costs = result.costs
    parts = [
        f"**Mode:** {escape_markdown(result.mode)}",
        f"**Status:** {escape_markdown(result.status)}",
        f"**Date:** {_format_date(result.started_at)}",
        f"**Duration:** {_format_duration(result.duration_s)}",
        f"**Cost:** {_format_cost(costs.total_usd)}",
        f"**Tokens:** {costs.tokens_in:,} in / {costs.tokens_out:,} out ({costs.llm_calls} LLM calls)",
        f"**Run:** {escape_markdown(result.run_id)}",
    ]
    return " · ".join(parts)


def _outline(sub_questions: list[BranchRow]) -> list[tuple[str, int, BranchRow]]:
    """Sub-questions in tree order as (outline number, nesting level, sub-question).

    Children follow their parent, siblings keep their order in the list. A sub-question
    whose parent is missing is numbered as a top-level one, and so is one in a cycle, after
    the others (the rules of `BranchTree`). Of two with the same id, the first counts.
    """
    by_id: dict[str, BranchRow] = {}
    for sq in sub_questions:
        by_id.setdefault(sq.id, sq)
    tree = BranchTree(by_id)
    numbers = tree.numbers()
    return [(numbers[sid], tree.depth(sid), by_id[sid]) for sid in tree.depth_first()]


def _branch_blocks(result: RunResult, numbers: dict[str, int]) -> list[_Block]:
    blocks = [_Block("## Branch syntheses")]
    for number, level, sq in _outline(result.sub_questions):
        heading_level = min(6, 3 + level)
        question = escape_markdown(sq.question_text)
        facts = [
            f"**Priority:** {_number(sq.priority)}",
            f"**Status:** {escape_markdown(sq.status)}",
            f"**Confidence:** {_number(sq.confidence)}",
            f"**Iterations:** {_count(sq.iteration_count)}/{_count(sq.allocated_iterations)}",
        ]
        if sq.stop_reason:
            facts.append(f"**Stopped:** {escape_markdown(sq.stop_reason)}")
        blocks.append(_Block(f"{'#' * heading_level} {number} {question}\n\n" + " · ".join(facts)))
        # The synthesis's own headings go two levels down, below those of the child branches.
        synthesis = _llm_markdown(sq.synthesis, len(result.sources), min(6, heading_level + 2), f"branch {sq.id}")
        blocks.append(_Block(synthesis or "*No synthesis for this branch.*", cites=bool(synthesis)))
        if sq.findings:
            lines = ["**Findings**", ""]
            for finding in sq.findings:
                text = _inline_llm_markdown(finding.text)
                cited = sorted({numbers[s] for s in finding.source_ids if s in numbers})
                citations = "".join(f"[{n}]" for n in cited)
                confidence = _number(finding.confidence)
                lines.append(f"- {text} (confidence {confidence}){' ' + citations if citations else ''}")
            blocks.append(_Block("\n".join(lines), cites=True))
    return blocks


def _source_entry(number: int, source: Source) -> str:
    """One source line: `[n] **title** (backend · page read) — link`, then a short snippet (or its passages)."""
    title = escape_markdown(source.title) or "Untitled source"
    backend = escape_markdown(source.backend)
    link = safe_link(source.url)
    if link is not None:
        location = f"<{link}>"
    else:
        shown = safe_url(source.url)
        location = escape_markdown(shown) if shown else "*(link removed: not an http(s) address)*"
    how = reading_label(source.backend, source.read)
    about = " · ".join(part for part in (backend, how) if part)
    entry = f"[{number}] **{title}**{f' ({about})' if about else ''} — {location}"
    snippet = " ".join(strip_control_chars(source.snippet).split())
    if snippet:
        if len(snippet) > _SNIPPET_CHARS:
            snippet = snippet[: _SNIPPET_CHARS - 1].rstrip() + "…"
        entry += "  \n  " + escape_markdown(snippet)
    return entry


def _quote_lines(quotes: list[SourceQuote]) -> list[str]:
    """A source's distinct quotes as inline Markdown lines (`"text" — link`), for under its entry."""
    return [quote_markdown(q) for q in distinct_quotes(quotes)]


def _markdown_source_item(entry: str, quotes: list[str]) -> str:
    """A source's list item: its entry, then its quotes as one block quote, a paragraph each.

    The quote lines are indented into the item and separated by `>` lines, not blank ones, so the
    list stays tight and renders as before for a source without quotes.
    """
    item = f"- {entry}"
    if quotes:
        item += "\n" + "\n  >\n".join(f"  > {line}" for line in quotes)
    return item


def statements_line(result: RunResult) -> str:
    """'N of M statements supported by their cited sources', counting every factual statement written."""
    s = result.synthesis
    removed = s.statements_checked - s.statements_supported
    line = f"{s.statements_supported} of {s.statements_checked} statements supported by their cited sources"
    return line + (f"; {removed} unsupported statement(s) removed." if removed else ".")


def _build_report(result: RunResult) -> _Report:
    report = _Report()
    question = escape_markdown(result.question) or "Research report"
    report.head.append(_Block(f"# {question}\n\n{_metadata_line(result)}"))
    answer = _llm_markdown(result.final_answer, len(result.sources), 3, "the final answer")
    report.head.append(_Block("## Answer"))
    report.head.append(_Block(answer or "*No final answer was produced.*", cites=bool(answer)))
    if result.synthesis.statements_checked:
        report.head.append(_Block(f"*{statements_line(result)}*"))
    numbers = {source.id: i for i, source in enumerate(result.sources, start=1)}
    if result.sub_questions:
        report.head.extend(_branch_blocks(result, numbers))
    report.sources = [_source_entry(i, s) for i, s in enumerate(result.sources, start=1)]
    quotes = quotes_by_source(result_findings(result))
    report.quotes = [_quote_lines(quotes.get(s.id, [])) for s in result.sources]
    report.hovers = {
        n: hover for n, s in enumerate(result.sources, start=1) if (hover := citation_hover(quotes.get(s.id, [])))
    }
    gaps = (result.coverage or {}).get("gaps") or []
    covered = (result.coverage or {}).get("covered") or []
    if result.warnings or gaps:
        lines = ["## Warnings and limitations", ""]
        lines.extend(f"- Not covered: {escape_markdown(str(g))}" for g in gaps)
        lines.extend(f"- {escape_markdown(w) or '(empty warning)'}" for w in result.warnings)
        if covered:
            lines.append(f"- Covered: {', '.join(escape_markdown(str(c)) for c in covered)}")
        if result.synthesis.citations_checked:
            lines.append(
                f"- Citations checked against their sources: {result.synthesis.citations_supported} of "
                f"{result.synthesis.citations_checked} supported."
            )
        report.tail.append(_Block("\n".join(lines)))
    return report


# ---- Markdown --------------------------------------------------------------------------


def to_markdown(result: RunResult) -> str:
    """The run as a Markdown report: question, metadata, answer, branches, sources, warnings."""
    report = _build_report(redact_result(result))
    parts = [block.markdown for block in report.head]
    parts.append("## Sources")
    if report.sources:
        parts.append("\n".join(_markdown_source_item(e, q) for e, q in zip(report.sources, report.quotes, strict=True)))
    else:
        parts.append("*No sources were collected.*")
    parts.extend(block.markdown for block in report.tail)
    return redact_secrets("\n\n".join(parts) + "\n")


# ---- HTML ------------------------------------------------------------------------------

_ALLOWED_TAGS = {
    *(f"h{i}" for i in range(1, 7)),
    "p",
    "br",
    "hr",
    "ul",
    "ol",
    "li",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "header",
    "section",
}
_ALLOWED_ATTRIBUTES = {"a": {"href"}, "li": {"id"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}
_TITLE_CHARS = 1000  # a tooltip holds two clipped quotes; nothing needs more
_SOURCE_ANCHOR = re.compile(r"#source-\d{1,3}")
_SOURCE_ID = re.compile(r"source-\d{1,3}")
_TABLE_ALIGN = re.compile(r"text-align:(left|right|center)")

_CSS = """
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 50rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.7rem; line-height: 1.25; }
h1 + p { color: #59636e; font-size: 0.9rem; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: 0.2rem; margin-top: 2rem; }
a { color: #0969da; }
a[href^="#source-"] { text-decoration: none; font-size: 0.85em; vertical-align: super; }
section.sources ul { list-style: none; padding-left: 0; }
section.sources li { margin: 0.5rem 0; word-break: break-word; }
li:target { background: #fff8c5; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
pre { background: #f6f8fa; padding: 0.75rem; overflow-x: auto; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d1d9e0; padding: 0.3rem 0.6rem; }
blockquote { color: #59636e; border-left: 0.25rem solid #d1d9e0; margin-left: 0; padding-left: 1rem; }
@media print { a[href^="#source-"] { color: inherit; } }
""".strip()

# The page loads nothing and runs nothing, even if something slipped through the sanitiser.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def _markdown_renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _link_citations(children: list[Token], source_count: int, hovers: dict[int, str]) -> list[Token]:
    """Turn `[n]` in plain text (not inside a link) into links to `#source-n`, titled `hovers[n]` if it has one."""
    out: list[Token] = []
    depth = 0
    for token in children:
        if token.type == "link_open":
            depth += 1
        elif token.type == "link_close":
            depth -= 1
        if token.type != "text" or depth > 0 or "[" not in token.content:
            out.append(token)
            continue
        position = 0
        for match in _CITATION.finditer(token.content):
            n = int(match.group(1))
            if not 1 <= n <= source_count:
                continue
            if match.start() > position:
                out.append(Token("text", "", 0, content=token.content[position : match.start()]))
            attrs = {"href": f"#source-{n}"} | ({"title": hovers[n]} if hovers.get(n) else {})
            out.append(Token("link_open", "a", 1, attrs=attrs, markup="citation"))
            out.append(Token("text", "", 0, content=f"[{n}]"))
            out.append(Token("link_close", "a", -1, markup="citation"))
            position = match.end()
        if position < len(token.content):
            out.append(Token("text", "", 0, content=token.content[position:]))
    return out


def _render_block(md: MarkdownIt, block: _Block, source_count: int, hovers: dict[int, str]) -> str:
    tokens = md.parse(block.markdown)
    if block.cites:
        for token in tokens:
            if token.type == "inline" and token.children:
                token.children = _link_citations(token.children, source_count, hovers)
    return md.renderer.render(tokens, md.options, {})


def _keep_attribute(tag: str, attribute: str, value: str) -> str | None:
    """nh3 attribute filter: only source anchors as ids, only text alignment as style, titles cut to
    `_TITLE_CHARS` (nh3 keeps `title` on every tag, as plain text that its serialiser escapes)."""
    if attribute == "id":
        return value if _SOURCE_ID.fullmatch(value) else None
    if attribute == "style":
        match = _TABLE_ALIGN.fullmatch(value.replace(" ", "").rstrip(";"))
        return f"text-align: {match.group(1)}" if match else None
    if attribute == "title":
        return value[:_TITLE_CHARS]
    if attribute == "start":
        return value if value.isdigit() and len(value) <= 9 else None
    return value


def _keep_relative_url(url: str) -> str | None:
    """nh3 relative-URL policy: only the in-page links to source anchors survive."""
    return url if _SOURCE_ANCHOR.fullmatch(url) else None


def sanitize_html(fragment: str) -> str:
    """Sanitise an HTML fragment of a report with a conservative allow-list (nh3).

    Kept: headings, paragraphs, lists, emphasis, code, quotes, tables and links to http(s)
    URLs or `#source-n` anchors (with `rel="noopener noreferrer nofollow"`), and `title`
    tooltips as escaped text; everything else, event handlers and styles included, is removed.
    """
    return nh3.clean(
        fragment,
        tags=_ALLOWED_TAGS,
        clean_content_tags={"script", "style"},
        attributes=_ALLOWED_ATTRIBUTES,
        allowed_classes={"section": {"sources"}},
        attribute_filter=_keep_attribute,
        url_schemes={"http", "https"},
        url_relative=_keep_relative_url,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def _html_quotes(md: MarkdownIt, quotes: list[str]) -> str:
    """A source's quote lines as one `<blockquote>` each, "" when it has none."""
    return "".join(md.render(f"> {line}") for line in quotes)


def to_html(result: RunResult) -> str:
    """The run as a standalone HTML5 page: inline CSS, no scripts, no external resources."""
    result = redact_result(result)
    report = _build_report(result)
    md = _markdown_renderer()
    count = len(report.sources)
    body = [_render_block(md, block, count, report.hovers) for block in report.head]
    body.append('<section class="sources">\n<h2>Sources</h2>\n')
    if report.sources:
        body.append("<ul>\n")
        body.extend(
            f'<li id="source-{n}">{md.renderInline(entry)}{_html_quotes(md, quotes)}</li>\n'
            for n, (entry, quotes) in enumerate(zip(report.sources, report.quotes, strict=True), start=1)
        )
        body.append("</ul>\n")
    else:
        body.append("<p><em>No sources were collected.</em></p>\n")
    body.append("</section>\n")
    body.extend(_render_block(md, block, count, report.hovers) for block in report.tail)
    return html_page(result.question or "Research report", "".join(body))


def markdown_html(markdown: str) -> str:
    """CommonMark (with tables) rendered to HTML, raw HTML in it disabled; not yet sanitised."""
    return _markdown_renderer().render(markdown)


def html_page(title: str, body: str) -> str:
    """A standalone HTML5 page titled `title` around `body`, which is sanitised here: inline CSS,
    no scripts, no external resources, key-like strings redacted."""
    shown = html.escape(" ".join(strip_control_chars(title).split()) or "Research report")
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="Arbor">\n'
        f"<title>{shown}</title>\n<style>\n{_CSS}\n</style>\n</head>\n<body>\n<main>\n"
        f"{sanitize_html(body)}\n</main>\n</body>\n</html>\n"
    )
    return redact_secrets(page)


# ---- JSON and the download helper ------------------------------------------------------


def _html_safe(json_text: str) -> str:
    """Escape <, > and & as \\u003c, \\u003e and \\u0026 (they only occur inside JSON strings).

    The data parses back unchanged, but web text such as `<script>` never appears as markup in
    the file, so a viewer that pastes the JSON into a page cannot be made to run it.
    """
    return json_text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _json_data(result: RunResult) -> dict[str, Any]:
    """The result dumped as JSON data, each source with a `quotes` list of the findings citing it.

    `quotes` is not a field of `Source` (which ignores unknown keys), so the JSON still loads back
    into an equal RunResult; a source no quoted finding cites gets an empty list.
    """
    data = result.model_dump(mode="json")
    quotes = quotes_by_source(result_findings(result))
    for source in data["sources"]:
        source["quotes"] = quotes_json(quotes.get(source["id"], []))
    return data


def to_json(result: RunResult) -> str:
    """The RunResult as indented, HTML-safe JSON, with anything that looks like an API key redacted;
    each source also lists the quotes of the findings that cite it."""
    return _html_safe(pydantic_core.to_json(_json_data(redact_result(result)), indent=2).decode())


def to_jsonl(result: RunResult) -> str:
    """The run's execution log (decisions with the model's reasoning), one HTML-safe JSON object per line."""
    redacted = redact_result(result)
    lines = [_html_safe(entry.model_dump_json()) for entry in redacted.log]
    return "\n".join(lines) + ("\n" if lines else "")


def _slug(text: str, max_chars: int = _SLUG_CHARS) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_chars].rstrip("-")


def export_file_name(result: RunResult, fmt: ExportFormat) -> str:
    """A safe file name such as `what-is-quantum-computing-3f2a9c.md`."""
    slug = _slug(result.question) or "research"
    run = re.sub(r"[^A-Za-z0-9_-]+", "", result.run_id)[:40] or "run"
    return f"{slug}-{run}.{fmt}"


def render_export(result: RunResult, fmt: ExportFormat) -> str | bytes:
    """`result` as `fmt`: text for md, html, json and jsonl (the log), bytes for pdf and docx.

    The PDF and Word renderers are imported here, on first use: WeasyPrint takes a while to load.
    """
    if fmt == "pdf":
        from research_core.output.pdf import to_pdf

        return to_pdf(result)
    if fmt == "docx":
        from research_core.output.word import to_docx

        return to_docx(result)
    renderers = {"md": to_markdown, "html": to_html, "json": to_json, "jsonl": to_jsonl}
    if fmt not in renderers:
        raise ValueError(f"Unknown export format {fmt!r}; expected one of: {', '.join(EXPORT_FORMATS)}.")
    return renderers[fmt](result)


def export_result(result: RunResult, fmt: ExportFormat) -> tuple[str | bytes, str, str]:
    """Render `result` as `fmt` (see `render_export`); return (content, file name, MIME type)."""
    return render_export(result, fmt), export_file_name(result, fmt), MIME_TYPES[fmt]
