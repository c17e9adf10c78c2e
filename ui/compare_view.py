"""The Compare view: two runs' metrics side by side, the pairwise judgement, progress and reports.

Built from `research_core.runs.compare` (RunMetrics, Comparison) and run snapshots only, so the
Compare page stays thin. The judge's reasons are LLM text about web content: they are shown
escaped, never as Markdown or HTML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from research_core.output.document import DOCUMENT_FORMATS, document_mime, render_document
from research_core.runs.compare import CRITERIA, Comparison, RunMetrics
from research_core.runs.errors import RunError
from research_core.runs.records import RunResult, RunSummary
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot
from ui import report_view, run_view, state, widgets
from ui.widgets import esc

CRITERION_LABELS: dict[str, str] = {
    "more_complete": "More complete",
    "better_organised": "Better organised",
    "better_supported": "Better supported",
}
METRIC_LABELS: tuple[str, ...] = (
    "Mode",
    "Status",
    "Time",
    "Iterations",
    "LLM calls",
    "Tokens",
    "Cost (USD)",
    "Findings",
    "Distinct sources",
    "Statements supported",
    "Citations supported",
    "Coverage",
)
ROW_PX = 35  # the height of one table row (and of the header)


# ---- names --------------------------------------------------------------------------------------


def side_names(left_id: str, left_mode: str | None, right_id: str, right_mode: str | None) -> dict[str, str]:
    """How the page names each run: `Left (flat)`, `Right (hierarchical)`."""
    return {
        left_id: f"Left ({left_mode or 'mode unknown'})",
        right_id: f"Right ({right_mode or 'mode unknown'})",
    }


# ---- metrics ------------------------------------------------------------------------------------


def citations_text(m: RunMetrics) -> str:
    """`3 of 4 (75%)`, or why there is no figure."""
    if not m.citations_checked:
        return "not checked"
    share = round(100 * m.citations_supported / m.citations_checked)
    return f"{m.citations_supported} of {m.citations_checked} ({share}%)"


def statements_text(m: RunMetrics) -> str:
    """`9 of 10 (90%)`: the report's factual statements a cited source supports."""
    if not m.statements_checked:
        return "none written"
    share = round(100 * m.statements_supported / m.statements_checked)
    return f"{m.statements_supported} of {m.statements_checked} ({share}%)"


def coverage_text(m: RunMetrics) -> str:
    """`2 covered, 1 gap`, or `not assessed`."""
    if m.coverage_covered is None and m.coverage_gaps is None:
        return "not assessed"
    return f"{m.coverage_covered or 0} covered, {widgets.plural(m.coverage_gaps or 0, 'gap')}"


def metric_values(m: RunMetrics) -> list[str]:
    """One run's figures, in the order of METRIC_LABELS."""
    return [
        m.mode,
        widgets.status_label(m.status),
        widgets.format_duration(m.duration_s),
        str(m.iterations),
        str(m.llm_calls),
        f"{m.tokens:,}",
        widgets.usd_amount(m.cost_usd),
        str(m.findings),
        str(m.distinct_sources),
        statements_text(m),
        citations_text(m),
        coverage_text(m),
    ]


def metrics_frame(left: RunMetrics, right: RunMetrics) -> pd.DataFrame:
    """The metrics table: one row per figure, one column per run."""
    rows = zip(METRIC_LABELS, metric_values(left), metric_values(right), strict=True)
    return pd.DataFrame(list(rows), columns=["metric", "left", "right"])


def metrics_table(left: RunMetrics, right: RunMetrics, *, key: str = "compare_metrics") -> None:
    """The two runs' figures side by side."""
    st.dataframe(
        metrics_frame(left, right),
        hide_index=True,
        width="stretch",
        height=ROW_PX * (len(METRIC_LABELS) + 1) + 3,  # every row visible, no inner scrolling
        column_config={
            "metric": st.column_config.TextColumn("", width="medium"),
            "left": st.column_config.TextColumn("left", width="medium"),
            "right": st.column_config.TextColumn("right", width="medium"),
        },
        key=key,
    )


# ---- judgement ----------------------------------------------------------------------------------


def verdict_text(winner: str, names: Mapping[str, str]) -> str:
    """One criterion's outcome in words (Markdown, names escaped)."""
    if winner in names:
        return f"**{esc(names[winner])}**"
    if winner == "tie":
        return "tie"
    if winner == "inconsistent":
        return "no winner (the judge's pick changed when the reports were swapped)"
    if winner == "not judged":
        return "not judged"
    return f"**{esc(winner)}** (not one of these two runs)"


def judgement_lines(comparison: Comparison, names: Mapping[str, str]) -> list[str]:
    """`More complete: **Right (hierarchical)**` for each criterion."""
    return [
        f"{CRITERION_LABELS.get(c, c)}: {verdict_text(comparison.judgement.get(c, 'not judged'), names)}"
        for c in CRITERIA
    ]


def judge_cost_text(comparison: Comparison) -> str:
    """What the judge's own calls cost."""
    costs = comparison.judge_costs
    if costs is None:
        return "The judge's own LLM calls were not recorded."
    tokens = costs.tokens_in + costs.tokens_out
    return (
        f"The judgement took {widgets.plural(costs.llm_calls, 'LLM call')}, {tokens:,} tokens, "
        f"{widgets.format_cost(costs.total_usd)} (not counted in either run's cost)."
    )


def judgement(comparison: Comparison, names: Mapping[str, str]) -> None:
    """The order-balanced judgement: the winner per criterion, each order's reasons, the judge's cost."""
    st.markdown("\n".join(f"- {line}" for line in judgement_lines(comparison, names)))
    if comparison.verdicts:
        for n, verdict in enumerate(comparison.verdicts, start=1):
            a = names.get(verdict.report_a, verdict.report_a)
            b = names.get(verdict.report_b, verdict.report_b)
            picks = ", ".join(
                f"{CRITERION_LABELS[c].lower()} {getattr(verdict, c)}" for c in CRITERIA if c in CRITERION_LABELS
            )
            with st.container(border=True):
                st.caption(f"Order {n}: A = {esc(a)}, B = {esc(b)} · {esc(picks)}")
                st.markdown(esc(verdict.reasoning) or "_No reasons given._")
    else:
        for reason in comparison.reasoning:
            st.markdown(f"> {esc(reason)}")
    for error in comparison.judge_errors:
        st.warning(f"One order could not be judged: {esc(error)}", icon=":material/warning:")
    st.caption(judge_cost_text(comparison))


def judgement_markdown(comparison: Comparison, names: Mapping[str, str], left: RunMetrics, right: RunMetrics) -> str:
    """The judgement as a document: the two runs, their figures, the winner per criterion, the reasons."""
    lines = [
        f"# Comparison: {esc(comparison.question) or 'two reports'}",
        "",
        f"Left: **{esc(names.get(left.run_id, left.run_id))}**, run {esc(left.run_id)} · "
        f"Right: **{esc(names.get(right.run_id, right.run_id))}**, run {esc(right.run_id)}",
        "",
        "## Figures",
        "",
        "| | Left | Right |",
        "|---|---|---|",
    ]
    rows = zip(METRIC_LABELS, metric_values(left), metric_values(right), strict=True)
    lines.extend(f"| {label} | {esc(a)} | {esc(b)} |" for label, a, b in rows)
    lines += ["", "## Judgement", "", *(f"- {line}" for line in judgement_lines(comparison, names)), ""]
    for n, verdict in enumerate(comparison.verdicts, start=1):
        a, b = names.get(verdict.report_a, verdict.report_a), names.get(verdict.report_b, verdict.report_b)
        lines += [f"### Order {n}: A = {esc(a)}, B = {esc(b)}", "", esc(verdict.reasoning) or "*No reasons given.*", ""]
    if not comparison.verdicts:
        lines += [f"> {esc(reason)}\n" for reason in comparison.reasoning]
    lines += [f"*One order could not be judged: {esc(error)}*\n" for error in comparison.judge_errors]
    lines.append(judge_cost_text(comparison))
    return "\n".join(lines) + "\n"


def judgement_downloads(comparison: Comparison, names: Mapping[str, str], left: RunMetrics, right: RunMetrics) -> None:
    """Download buttons for the judgement as Markdown, HTML, PDF and Word (the last two made on click)."""
    markdown = judgement_markdown(comparison, names, left, right)
    title = f"Comparison: {comparison.question}"
    stem = "comparison-" + "-".join(re.sub(r"[^A-Za-z0-9_-]+", "", r)[:40] for r in (left.run_id, right.run_id))
    with st.container(horizontal=True, gap="small"):
        for fmt in DOCUMENT_FORMATS:
            label, icon = report_view.EXPORT_FORMATS[fmt]
            data: Any = partial(render_document, title, markdown, fmt)
            if fmt in ("md", "html"):
                data = data()
            report_view.download_button(label, icon, data, f"{stem}.{fmt}", document_mime(fmt), f"cmp_judgement_{fmt}")


# ---- progress -----------------------------------------------------------------------------------


def progress_card(snap: RunSnapshot, name: str, *, waiting_for: str | None = None) -> None:
    """One run of a comparison while it works: status, headline numbers and what it is doing."""
    with st.container(border=True):
        st.markdown(f"**{esc(name)}**")
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            widgets.status_badge(snap.status)
            st.caption(f"`{esc(snap.run_id)}`")
        if waiting_for and snap.status == "created":
            st.caption(f"Waits for {esc(waiting_for)}: the model answers one request at a time.")
            return
        st.caption(" · ".join(f"{label}: {value}" for label, value in run_view.progress_values(snap)))
        if snap.status in ("created", "running"):
            st.caption(esc(run_view.activity_line(snap)))
        if snap.error:
            st.caption(f"Error: {esc(snap.error)}")


def progress_cards(snaps: Sequence[RunSnapshot], names: Mapping[str, str], *, sequential: bool) -> None:
    """Both runs' progress cards side by side; run one after the other, the right one waits for the left."""
    columns = st.columns(2, gap="large")
    for n, (col, snap) in enumerate(zip(columns, snaps, strict=True)):
        with col:
            waiting_for = names[snaps[0].run_id] if sequential and n == 1 else None
            progress_card(snap, names[snap.run_id], waiting_for=waiting_for)


def stalled_runs(runner: Runner, rows: Sequence[RunSummary], names: Mapping[str, str]) -> None:
    """Runs of the pair that stopped before finishing: what happened and how to continue."""
    columns = st.columns(2, gap="large")
    for col, row in zip(columns, rows, strict=True):
        run_id, status = row.id, row.status
        with col, st.container(border=True):
            st.markdown(f"**{esc(names[run_id])}**")
            widgets.status_badge(status)
            if row.error:
                st.caption(f"Error: {esc(row.error)}")
            if status in state.FINISHED:
                continue
            with st.container(horizontal=True, gap="small"):
                resumable = status in (*state.RESUMABLE, "created")
                if resumable and st.button("Resume", icon=":material/replay:", key=f"cmp_resume_{run_id}"):
                    try:
                        runner.resume_background(run_id)
                    except RunError as exc:
                        st.error(str(exc), icon=":material/error:")
                    else:
                        st.rerun()
                st.page_link(
                    state.page_for_status(status),
                    label="Open the run",
                    icon=":material/arrow_forward:",
                    query_params={"run": run_id},
                )


# ---- reports ------------------------------------------------------------------------------------


def reports_side_by_side(left: RunResult, right: RunResult, names: Mapping[str, str]) -> None:
    """The two reports next to each other, each in its own scrolling box."""
    left_col, right_col = st.columns(2, gap="large")
    for col, key, result in ((left_col, "left", left), (right_col, "right", right)):
        with col:
            st.markdown(f"#### {esc(names.get(result.run_id, key))}")
            st.caption(esc(widgets.shorten(result.question, 160)))
            report_view.downloads(result, f"compare_{key}")
            with st.container(border=True, height=640):
                report_view.report(result, key_prefix=f"compare_{key}", compact=True)
