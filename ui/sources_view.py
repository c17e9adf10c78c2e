"""The sources of a report: the numbered table, how they were read, and what they say.

Sources are numbered as the report cites them: [n] is `result.sources[n-1]`. Under the table,
the quotes the findings citing each source rest on are listed source by source, so the reader can
check a citation against the source's own words; a run whose findings have no quotes shows the
table alone. Titles, URLs and quotes are web text: escaped, and only http(s) addresses are links.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from research_core.output.quotes import QuotesBySource, distinct_quotes, quote_markdown
from research_core.runs.records import RunResult
from research_core.schemas import Source
from research_core.sources.labels import reading_label
from research_core.text.sanitize import safe_link
from ui import widgets


def sources_frame(result: RunResult) -> pd.DataFrame:
    """Sources numbered as cited: title, clickable http(s) link, location, backend, how read, branch."""
    rows = []
    for n, source in enumerate(result.sources, start=1):
        link = safe_link(source.url)
        rows.append(
            {
                "#": n,
                "title": source.title or "(untitled)",
                "link": link,
                "location": None if link else source.url,
                "backend": source.backend,
                "read": reading_label(source.backend, source.read) or "document",
                "branch": source.sub_question_id or "",
            }
        )
    return pd.DataFrame(rows, columns=["#", "title", "link", "location", "backend", "read", "branch"])


def source_quotes_markdown(sources: Sequence[Source], quotes: QuotesBySource) -> str:
    """The quoted sources, numbered as cited, each followed by its distinct quotes as a block quote;
    "" when no source has a quote."""
    blocks = []
    for n, source in enumerate(sources, start=1):
        lines = [quote_markdown(q) for q in distinct_quotes(quotes.get(source.id, []))]
        if lines:
            heading = f"\\[{n}\\] {widgets.source_link(source.title, source.url)}"
            blocks.append(heading + "\n\n" + "\n>\n".join(f"> {line}" for line in lines))
    return "\n\n".join(blocks)


def source_quotes(sources: Sequence[Source], quotes: QuotesBySource) -> None:
    """The sources' quotes in a closed expander under the sources table; nothing when there are none."""
    md = source_quotes_markdown(sources, quotes)
    if not md:
        return
    count = sum(len(distinct_quotes(quotes.get(s.id, []))) for s in sources)
    with st.expander(f"What the sources say: {widgets.plural(count, 'quote')}", icon=":material/format_quote:"):
        st.caption("The passages the findings rest on, quoted verbatim; a link opens the page at the quote.")
        st.markdown(md)


def reading_summary(result: RunResult) -> str:
    """How many web sources were read as pages, e.g. "3 of 5 web sources were read as pages; …"."""
    web = [s for s in result.sources if s.backend != "library"]
    if not web:
        return ""
    read = sum(1 for s in web if s.read == "page")
    return (
        f"{read} of {len(web)} web sources were read as pages (their most relevant passages); "
        "the others by their search snippet only."
    )


def sources_section(result: RunResult, quotes: QuotesBySource, *, key_prefix: str) -> None:
    """The Sources heading, how the web sources were read, the numbered table and the sources' quotes."""
    st.markdown("#### Sources")
    if not result.sources:
        st.caption("No sources were found.")
        return
    if reading_summary(result):
        st.caption(reading_summary(result))
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
    source_quotes(result.sources, quotes)
