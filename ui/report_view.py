"""The report of a finished run: answer, branch syntheses, sources, totals and downloads.

Shared by the Report page and the Compare page. The result's syntheses already carry global
citation numbers: [n] is `result.sources[n-1]`.
"""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from research_core.schemas import RunResult
from ui import widgets
from ui.widgets import esc

logger = logging.getLogger(__name__)

EXPORT_FORMATS = {
    "md": ("Markdown", ":material/description:"),
    "html": ("HTML", ":material/language:"),
    "json": ("JSON", ":material/data_object:"),
}


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


def sources_frame(result: RunResult) -> pd.DataFrame:
    """Sources numbered as cited: title, clickable http(s) link, location, backend, branch."""
    rows = []
    for n, source in enumerate(result.sources, start=1):
        link = widgets.safe_link(source.url)
        rows.append(
            {
                "#": n,
                "title": source.title or "(untitled)",
                "link": link,
                "location": None if link else source.url,
                "backend": source.backend,
                "branch": source.sub_question_id or "",
            }
        )
    return pd.DataFrame(rows, columns=["#", "title", "link", "location", "backend", "branch"])


def downloads(result: RunResult, key_prefix: str) -> None:
    """Download buttons for the Markdown, HTML and JSON exports."""
    try:
        from research_core.export import export_result
    except ImportError:
        st.caption("Exports are not available in this installation.")
        return
    with st.container(horizontal=True, gap="small"):
        for fmt, (label, icon) in EXPORT_FORMATS.items():
            try:
                content, file_name, mime = export_result(result, fmt)  # type: ignore[arg-type]
            except Exception:
                logger.exception("export %s of %s failed", fmt, result.run_id)
                st.button(f"{label} unavailable", disabled=True, key=f"{key_prefix}_dl_{fmt}_off")
                continue
            st.download_button(
                label,
                data=content,
                file_name=file_name,
                mime=mime,
                icon=icon,
                key=f"{key_prefix}_dl_{fmt}",
                on_click="ignore",
            )


def branch_syntheses(result: RunResult) -> None:
    """Each branch's answer in an expander, numbered 1, 1.1, 2 … in tree order."""
    numbers = widgets.branch_numbers(result.sub_questions)
    for sq in result.sub_questions:
        number = numbers.get(sq["id"], "")
        status = sq.get("status") or ""
        label = f"{number} · {widgets.shorten(sq.get('question_text') or '', 110)}"
        with st.expander(esc(label), icon=widgets.BRANCH_ICONS.get(status)):
            confidence = sq.get("confidence")
            st.caption(
                f"{esc(status)} · priority {float(sq.get('priority') or 0):.2f} · "
                f"{widgets.plural(int(sq.get('iteration_count') or 0), 'iteration')}"
                + (f" · confidence {float(confidence):.2f}" if confidence is not None else "")
            )
            if sq.get("synthesis"):
                st.markdown(widgets.clean_md(sq["synthesis"]))
            else:
                st.caption("No synthesis for this branch.")


def report(result: RunResult, *, key_prefix: str = "report", compact: bool = False) -> None:
    """The whole report of a run."""
    if not compact:
        widgets.totals_row(totals(result))
    widgets.show_warnings(result.warnings)
    st.markdown(widgets.clean_md(result.final_answer) or "_The run produced no answer._")
    if result.mode == "hierarchical" and result.sub_questions:
        st.markdown("#### Branches")
        branch_syntheses(result)
    st.markdown("#### Sources")
    if result.sources:
        st.dataframe(
            sources_frame(result),
            hide_index=True,
            width="stretch",
            column_config={
                "#": st.column_config.NumberColumn("#", width=40),
                "title": st.column_config.TextColumn("title", width="large"),
                "link": st.column_config.LinkColumn("link", width="medium"),
                "location": st.column_config.TextColumn("location", width="small"),
            },
            key=f"{key_prefix}_sources",
        )
    else:
        st.caption("No sources were found.")
