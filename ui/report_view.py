"""The report of a finished run: answer, hypotheses, branch syntheses, sources, totals and downloads.

Shared by the Report page and the Compare page. The result's syntheses already carry global
citation numbers: [n] is `result.sources[n-1]`. Citations become links to their source (http(s)
only); citations of numbers past the source list are removed, as in the exports. A citation's
tooltip shows its source's title and the quotes the findings citing it rest on, and the sources
list is followed by those quotes, source by source, so the reader can check them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from research_core.output.export import (
    BINARY_FORMATS,
    MIME_TYPES,
    drop_missing_citations,
    export_file_name,
    export_result,
)
from research_core.output.quotes import QuotesBySource, citation_hover, quotes_by_source, result_findings
from research_core.runs.records import RunResult
from research_core.runs.rows import BranchRow
from research_core.schemas import Source
from research_core.text.citations import markers_to_numbered
from research_core.text.markdown_fences import scan_fences
from research_core.text.sanitize import safe_link
from ui import sources_view, widgets
from ui.widgets import esc

logger = logging.getLogger(__name__)

EXPORT_FORMATS = {
    "md": ("Markdown", ":material/description:"),
    "html": ("HTML", ":material/language:"),
    "json": ("JSON", ":material/data_object:"),
    "pdf": ("PDF", ":material/picture_as_pdf:"),
    "docx": ("Word", ":material/article:"),
}

# verdict: (label, badge colour, icon)
VERDICTS: dict[str, tuple[str, str, str]] = {
    "validated": ("Validated", "green", ":material/check_circle:"),
    "refuted": ("Refuted", "red", ":material/cancel:"),
    "inconclusive": ("Inconclusive", "orange", ":material/help:"),
    "": ("Not judged", "gray", ":material/hourglass_empty:"),
}

_CITATION = re.compile(r"(?<!\\)\[(\d{1,3})\](?!\()")
# Spans where a `[n]` is not a citation: inline code, and links the LLM wrote itself.
_NOT_CITABLE = re.compile(r"(`+)[^`].*?\1|\[(?:\\.|[^\[\]\\]|\[[^\[\]]*\])*\]\([^)\n]*\)")
_TITLE_UNSAFE = re.compile(r"[\"\\`\x00-\x1f\x7f-\x9f]")  # would end a link title or pair with a backtick outside it


# ---- citations ----------------------------------------------------------------------------------


def citation_targets(
    sources: Sequence[Source], quotes: QuotesBySource | None = None
) -> dict[int, tuple[str | None, str]]:
    """Number -> (http(s) link or None, tooltip) for each source, numbered from 1.

    The tooltip is the source's title (at most 100 characters), then, when findings citing the
    source have quotes, up to two of them (`citation_hover`).
    """
    targets: dict[int, tuple[str | None, str]] = {}
    for n, source in enumerate(sources, start=1):
        hover = widgets.shorten(_TITLE_UNSAFE.sub(" ", source.title or ""), 100) or f"source {n}"
        said = citation_hover((quotes or {}).get(source.id, []))
        if said:
            hover += " — " + " ".join(_TITLE_UNSAFE.sub(" ", said).split())
        targets[n] = (safe_link(source.url or ""), hover)
    return targets


def _citation_link(n: int, targets: Mapping[int, tuple[str | None, str]]) -> str:
    link, hover = targets.get(n, (None, ""))
    if not link:
        return f"\\[{n}\\]"
    return f'[\\[{n}\\]](<{link}> "{hover}")'


def link_citations(md: str, targets: Mapping[int, tuple[str | None, str]]) -> str:
    """Turn each `[n]` citation of cleaned Markdown into a link to source n's http(s) URL.

    Citations in code (fenced or inline) and inside links the text already has stay as they are;
    sources without an http(s) URL keep a plain `[n]`.
    """
    out: list[str] = []
    lines = md.split("\n")
    code, _open = scan_fences(lines)
    for line, in_code in zip(lines, code, strict=True):
        if in_code or "[" not in line:
            out.append(line)
            continue
        pieces: list[str] = []
        position = 0
        for span in _NOT_CITABLE.finditer(line):
            plain = line[position : span.start()]
            pieces.append(_CITATION.sub(lambda m: _citation_link(int(m.group(1)), targets), plain))
            pieces.append(span.group(0))
            position = span.end()
        pieces.append(_CITATION.sub(lambda m: _citation_link(int(m.group(1)), targets), line[position:]))
        out.append("".join(pieces))
    return "\n".join(out)


def cited_markdown(
    text: str | None, sources: Sequence[Source], top_heading: int = 4, quotes: QuotesBySource | None = None
) -> tuple[str, int]:
    """The LLM's Markdown made safe, with `[n]` linked to its source and citations of missing sources removed.

    A link's tooltip shows the source's title and its `quotes`. Returns the Markdown and how many
    citations were removed.
    """
    cleaned, removed = drop_missing_citations(widgets.clean_md(text, top_heading), len(sources))
    return link_citations(cleaned, citation_targets(sources, quotes)), removed


def show_cited(
    text: str | None, sources: Sequence[Source], empty: str, top_heading: int = 4, quotes: QuotesBySource | None = None
) -> None:
    """Render the LLM's Markdown with linked citations, and say when citations were removed."""
    md, removed = cited_markdown(text, sources, top_heading, quotes)
    st.markdown(md or empty)
    if removed:
        st.caption(
            f":material/link_off: {widgets.plural(removed, 'citation')} of sources that are not in the list "
            f"{'was' if removed == 1 else 'were'} removed."
        )


# ---- totals -------------------------------------------------------------------------------------


def totals(result: RunResult) -> list[tuple[str, str]]:
    """Run totals for a metrics row."""
    s = result.synthesis
    c = result.costs
    return [
        ("Time", widgets.format_duration(result.duration_s)),
        ("Iterations", str(s.total_iterations)),
        ("Findings", str(s.total_findings)),
        ("Sources", str(s.total_sources)),
        ("Tokens", f"{c.tokens_in + c.tokens_out:,}"),
        ("Cost (USD)", widgets.usd_amount(c.total_usd)),
    ]


def coverage_lists(result: RunResult) -> tuple[list[str], list[str]] | None:
    """The coverage assessment as (covered, gaps), or None when the run did not assess it."""
    if not result.coverage:
        return None
    cov = result.coverage
    covered = [str(c) for c in cov.get("covered") or [] if str(c).strip()]
    gaps = [str(g) for g in cov.get("gaps") or [] if str(g).strip()]
    return covered, gaps


def quality_totals(result: RunResult) -> list[tuple[str, str, str]]:
    """Citation checks and coverage as (label, value, help) for a metrics row."""
    checked = result.synthesis.citations_checked
    supported = result.synthesis.citations_supported
    if checked:
        citations = (
            "Citations supported",
            f"{supported} / {checked}",
            f"{supported} of the {checked} cited claims checked against their sources are supported by them.",
        )
    else:
        citations = ("Citations supported", "not checked", "No cited claim was checked against its source.")
    statements = (
        "Statements supported",
        f"{result.synthesis.statements_supported} / {result.synthesis.statements_checked}"
        if result.synthesis.statements_checked
        else "none",
        "Every factual statement the report's writer made, and how many a cited source's text supports. "
        "Unsupported statements were removed from the report.",
    )
    lists = coverage_lists(result)
    if lists is None:
        coverage = ("Coverage", "not assessed", "The run did not assess what the research covered.")
    else:
        covered, gaps = lists
        # short enough for a metric tile; the aspects themselves are listed beside it
        coverage = (
            "Coverage",
            f"{len(covered)} of {len(covered) + len(gaps)}",
            f"{len(covered)} aspects of the question answered; {widgets.plural(len(gaps), 'gap')} still missing "
            "or weak.",
        )
    return [statements, citations, coverage]


def quality_row(result: RunResult) -> None:
    """Citations supported and the coverage assessment: metrics, then what is covered and missing."""
    values = quality_totals(result)
    cols = st.columns([1] * len(values) + [len(values)])
    for col, (label, value, help_text) in zip(cols, values, strict=False):
        col.metric(label, value, help=help_text, border=True)
    lists = coverage_lists(result)
    if lists is None:
        return
    covered, gaps = lists
    with cols[-1]:
        if covered:
            st.markdown("**Covered:** " + " · ".join(esc(c) for c in covered))
        if gaps:
            st.markdown("**Gaps:** " + " · ".join(f":orange[{esc(g)}]" for g in gaps))
        elif covered:
            st.caption("No gaps were found.")


# ---- downloads --------------------------------------------------------------------------


def downloads(result: RunResult, key_prefix: str) -> None:
    """Download buttons for every export: Markdown, HTML, JSON, PDF and Word.

    PDF and Word are rendered when clicked (a long report takes a second or more to print), the
    text formats with the page.
    """
    with st.container(horizontal=True, gap="small"):
        for fmt, (label, icon) in EXPORT_FORMATS.items():
            key = f"{key_prefix}_dl_{fmt}"
            if fmt in BINARY_FORMATS:
                data: Any = rendered_on_click(result, fmt)
            else:
                try:
                    data = export_result(result, fmt)[0]  # type: ignore[arg-type]
                except Exception:
                    logger.exception("export %s of %s failed", fmt, result.run_id)
                    st.button(f"{label} unavailable", disabled=True, key=f"{key}_off")
                    continue
            file_name = export_file_name(result, fmt)  # type: ignore[arg-type]
            download_button(label, icon, data, file_name, MIME_TYPES[fmt], key)


def rendered_on_click(result: RunResult, fmt: str) -> Callable[[], bytes]:
    """A deferred download's data: `result` exported as `fmt` when the user clicks (failures logged)."""

    def render() -> bytes:
        try:
            content = export_result(result, fmt)[0]  # type: ignore[arg-type]
        except Exception:
            logger.exception("export %s of %s failed", fmt, result.run_id)
            raise
        return content if isinstance(content, bytes) else content.encode("utf-8")

    return render


def download_button(label: str, icon: str, data: Any, file_name: str, mime: str, key: str) -> None:
    """One download button that does not rerun the page; `data` may be a callable run on click."""
    st.download_button(label, data=data, file_name=file_name, mime=mime, icon=icon, key=key, on_click="ignore")


# ---- branches and hypotheses ------------------------------------------------------------------------


def branch_syntheses(result: RunResult, quotes: QuotesBySource | None = None) -> None:
    """Each branch's answer in an expander, numbered 1, 1.1, 2 … in tree order; citations show `quotes`."""
    numbers = widgets.branch_numbers(result.sub_questions)
    for sq in result.sub_questions:
        number = numbers.get(sq.id, "")
        label = f"{number} · {widgets.shorten(sq.question_text, 110)}"
        with st.expander(esc(label), icon=widgets.BRANCH_ICONS.get(sq.status)):
            st.caption(
                f"{esc(sq.status)} · priority {sq.priority:.2f} · {widgets.plural(sq.iteration_count, 'iteration')}"
                + (f" · confidence {sq.confidence:.2f}" if sq.confidence is not None else "")
            )
            show_cited(sq.synthesis, result.sources, "_No synthesis for this branch._", top_heading=5, quotes=quotes)


def hypotheses(result: RunResult) -> list[BranchRow]:
    """The result's hypothesis branches, in tree order."""
    return [sq for sq in result.sub_questions if sq.kind == "hypothesis" or sq.hypothesis]


def _verdict(sq: BranchRow) -> str:
    verdict = sq.notes.verdict or ""
    return verdict if verdict in VERDICTS else ""


def _out_of_ten(value: Any) -> str:
    try:
        return f"{int(value)}/10"
    except (TypeError, ValueError):
        return "–"


def hypotheses_frame(result: RunResult) -> pd.DataFrame:
    """One row per hypothesis: number, statement, verdict, confidence, prior, pivot."""
    numbers = widgets.branch_numbers(result.sub_questions)
    rows = []
    for sq in hypotheses(result):
        h = sq.notes
        rows.append(
            {
                "#": numbers.get(sq.id, sq.id),
                "hypothesis": sq.question_text,
                "verdict": VERDICTS[_verdict(sq)][0],
                "confidence": _out_of_ten(h.confidence) if _verdict(sq) else "–",
                "prior": _out_of_ten(h.initial_confidence),
                "pivot": h.pivot or "",
                "pivot of": numbers.get(h.pivot_of, h.pivot_of) if h.pivot_of else "",
            }
        )
    return pd.DataFrame(rows, columns=["#", "hypothesis", "verdict", "confidence", "prior", "pivot", "pivot of"])


def hypothesis_cards(result: RunResult, *, key_prefix: str, quotes: QuotesBySource | None = None) -> None:
    """The hypotheses: a verdict summary and table, then one card each with evidence (citations
    showing `quotes`) and pivots."""
    hyps = hypotheses(result)
    numbers = widgets.branch_numbers(result.sub_questions)
    numbering = {s.id: n for n, s in enumerate(result.sources, start=1)}
    counts = {v: sum(1 for sq in hyps if _verdict(sq) == v) for v in VERDICTS}
    summary = [f"{counts[v]} {VERDICTS[v][0].lower()}" for v in ("validated", "refuted", "inconclusive")]
    if counts[""]:
        summary.append(f"{counts['']} not judged")
    st.caption(" · ".join(summary))
    st.dataframe(
        hypotheses_frame(result),
        hide_index=True,
        width="stretch",
        column_config={
            "#": st.column_config.TextColumn("#", width=40),
            "hypothesis": st.column_config.TextColumn("hypothesis", width="large"),
            "pivot": st.column_config.TextColumn("suggested pivot", width="medium"),
        },
        key=f"{key_prefix}_hypotheses",
    )
    tested_pivots: dict[str, str] = {}
    for sq in hyps:
        if sq.notes.pivot_of:
            tested_pivots.setdefault(sq.notes.pivot_of, sq.id)
    for sq in hyps:
        h = sq.notes
        verdict = _verdict(sq)
        label, color, icon = VERDICTS[verdict]
        with st.container(border=True):
            st.markdown(f"**{esc(numbers.get(sq.id, sq.id))} · {esc(sq.question_text)}**")
            with st.container(horizontal=True, gap="small", vertical_alignment="center"):
                st.badge(label, color=color, icon=icon)  # type: ignore[arg-type]
                facts = []
                if verdict:
                    facts.append(f"confidence {_out_of_ten(h.confidence)}")
                facts.append(f"prior {_out_of_ten(h.initial_confidence)}")
                if h.pivot_of:
                    facts.append(f"pivot of {esc(numbers.get(h.pivot_of, h.pivot_of))}")
                st.caption(" · ".join(facts))
            if h.validation_criteria:
                st.caption(f"Test: {esc(h.validation_criteria)}")
            evidence = markers_to_numbered(h.evidence or "", numbering)
            if evidence.strip():
                st.markdown("**Evidence**")
                show_cited(evidence, result.sources, "", top_heading=5, quotes=quotes)
            elif not verdict:
                st.caption(f"Not judged ({esc(sq.status)}).")
            if h.pivot:
                tested = tested_pivots.get(sq.id)
                where = f" (tested as {esc(numbers.get(tested, tested))})" if tested else " (not tested)"
                st.markdown(f":material/alt_route: **Suggested pivot:** {esc(h.pivot)}{where}")


# ---- the whole report -------------------------------------------------------------------------------


def report(result: RunResult, *, key_prefix: str = "report", compact: bool = False) -> None:
    """The whole report of a run."""
    if not compact:
        widgets.totals_row(totals(result))
        quality_row(result)
    widgets.show_warnings(result.warnings)
    quotes = quotes_by_source(result_findings(result))
    show_cited(result.final_answer, result.sources, "_The run produced no answer._", quotes=quotes)
    if hypotheses(result):
        st.markdown("#### Hypotheses")
        hypothesis_cards(result, key_prefix=key_prefix, quotes=quotes)
    if result.mode in ("hierarchical", "hypothesis") and result.sub_questions:
        st.markdown("#### Branch syntheses" if result.mode == "hypothesis" else "#### Branches")
        branch_syntheses(result, quotes)
    sources_view.sources_section(result, quotes, key_prefix=key_prefix)
