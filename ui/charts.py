"""Charts of a run: the research tree as an icicle coloured by branch status, its legend, and the
iterations and cost charts.

Labels and hovers come from the LLM's questions, so every text is HTML-escaped for plotly.
"""

from __future__ import annotations

import html
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import streamlit as st

from research_core.runs.rows import BranchRow
from research_core.tree import BranchTree
from ui.widgets import BRANCH_ICONS, branch_numbers, shorten

BRANCH_COLORS: dict[str, str] = {
    "pending": "#D5DCD8",
    "researching": "#E9B949",
    "completed": "#3C8D73",
    "skipped": "#F1F1EE",
    "failed": "#C8553D",
}
ROOT_COLOR = "#C9D9D1"
DARK_TEXT = "#1E2A26"
LIGHT_TEXT = "#FFFFFF"
# Text on each status colour, for contrast.
BRANCH_TEXT: dict[str, str] = {"completed": LIGHT_TEXT, "failed": LIGHT_TEXT}
CHART_COLORS = ["#3C8D73", "#9BC4B4", "#E9B949", "#C8553D"]


# ---- the research tree ------------------------------------------------------------------------------


def _wrap_label(text: str, width: int = 28, lines: int = 3) -> str:
    wrapped = textwrap.wrap(" ".join(text.split()), width=width)[:lines]
    if len(textwrap.wrap(" ".join(text.split()), width=width)) > lines and wrapped:
        wrapped[-1] = wrapped[-1].rstrip(" .,;:") + " …"
    return "<br>".join(html.escape(line) for line in wrapped)


def tree_figure(question: str, branches: Sequence[BranchRow]) -> go.Figure:
    """An icicle of question -> branches (-> children), coloured by branch status."""
    numbers = branch_numbers(branches)
    tree = BranchTree({b.id: b for b in branches})
    ids = ["__question__"]
    parents = [""]
    labels = [f"<b>{_wrap_label(question, 90, 2)}</b>"]
    colors = [ROOT_COLOR]
    text_colors = [DARK_TEXT]
    hovers = [html.escape(shorten(question, 200))]
    depth = 0
    for b in branches:
        parent = tree.parent(b.id) or "__question__"
        status = b.status
        number = numbers.get(b.id, "")
        ids.append(b.id)
        parents.append(parent)
        labels.append(f"<b>{html.escape(number)}</b> {_wrap_label(b.question_text)}")
        colors.append(BRANCH_COLORS.get(status, BRANCH_COLORS["pending"]))
        text_colors.append(BRANCH_TEXT.get(status, DARK_TEXT))
        hovers.append(
            f"{html.escape(number)} · {html.escape(status)} · priority {b.priority:.2f}"
            f"<br>iterations {b.iteration_count}/{b.allocated_iterations}"
            f"<br>{html.escape(shorten(b.question_text, 120))}"
        )
        depth = max(depth, b.depth)
    figure = go.Figure(
        go.Icicle(
            ids=ids,
            labels=labels,
            parents=parents,
            marker={"colors": colors, "line": {"color": "#FFFFFF", "width": 2}},
            leaf={"opacity": 1.0},
            tiling={"orientation": "v"},
            customdata=hovers,
            hovertemplate="%{customdata}<extra></extra>",
            textinfo="label",
            textfont={"size": 13, "color": text_colors},
            insidetextfont={"size": 13, "color": text_colors},
            outsidetextfont={"size": 13, "color": text_colors},
            root={"color": ROOT_COLOR},
            sort=False,
        )
    )
    figure.update_layout(margin={"t": 4, "l": 4, "r": 4, "b": 4}, height=150 + 110 * (depth + 1))
    return figure


def legend_markdown() -> str:
    """The tree's status colours as Markdown chips: each status on its own tile colour, as in the tree."""
    chips = []
    for status, background in BRANCH_COLORS.items():
        foreground = BRANCH_TEXT.get(status, DARK_TEXT)
        label = f"{BRANCH_ICONS[status]} {status.capitalize()}"
        chips.append(f':color[\u00a0{label}\u00a0]{{foreground="{foreground}" background="{background}"}}')
    return "\u2002".join(chips)


def tree_legend() -> None:
    """The status colours of the tree, in the tree's own colours (pending and skipped differ)."""
    st.markdown(legend_markdown())


# ---- charts ----------------------------------------------------------------------------------------------


def _bar_layout(figure: go.Figure, title: str, height: int = 300) -> go.Figure:
    figure.update_layout(
        title={"text": title, "font": {"size": 14}},
        barmode="group",
        height=height,
        margin={"t": 40, "l": 8, "r": 8, "b": 8},
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def iterations_figure(branches: Sequence[BranchRow]) -> go.Figure:
    """Iterations allocated vs used per branch."""
    numbers = branch_numbers(branches)
    x = [numbers.get(b.id, b.id) for b in branches]
    hover = [html.escape(shorten(b.question_text, 80)) for b in branches]
    figure = go.Figure(
        [
            go.Bar(
                name="allocated",
                x=x,
                y=[b.allocated_iterations for b in branches],
                marker_color=CHART_COLORS[1],
                customdata=hover,
                hovertemplate="%{customdata}<br>allocated %{y}<extra></extra>",
            ),
            go.Bar(
                name="used",
                x=x,
                y=[b.iteration_count for b in branches],
                marker_color=CHART_COLORS[0],
                customdata=hover,
                hovertemplate="%{customdata}<br>used %{y}<extra></extra>",
            ),
        ]
    )
    figure.update_xaxes(type="category", title="branch")
    return _bar_layout(figure, "Iterations per branch")


def usage_by(entries: Iterable[Any], key: str, labels: Mapping[str, str] | None = None) -> dict[str, dict[str, float]]:
    """Cost and tokens per `key` ("branch" or "node") from cost entries (dicts or CostEntry)."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"cost": 0.0, "tokens_in": 0.0, "tokens_out": 0.0})
    for entry in entries:
        e = entry if isinstance(entry, Mapping) else entry.model_dump()
        name = e.get(key) or ("run" if key == "branch" else "other")
        name = (labels or {}).get(name, name)
        out[name]["cost"] += float(e.get("cost_usd") or 0)
        out[name]["tokens_in"] += float(e.get("tokens_in") or 0)
        out[name]["tokens_out"] += float(e.get("tokens_out") or 0)
    return dict(out)


def usage_figure(usage: Mapping[str, Mapping[str, float]], title: str) -> go.Figure:
    """Tokens (stacked in/out, left axis) and cost (right axis) per group."""
    names = list(usage)
    figure = go.Figure(
        [
            go.Bar(name="tokens in", x=names, y=[usage[n]["tokens_in"] for n in names], marker_color=CHART_COLORS[1]),
            go.Bar(name="tokens out", x=names, y=[usage[n]["tokens_out"] for n in names], marker_color=CHART_COLORS[0]),
            go.Scatter(
                name="cost (USD)",
                x=names,
                y=[usage[n]["cost"] for n in names],
                yaxis="y2",
                mode="markers+lines",
                marker={"color": CHART_COLORS[3], "size": 9},
            ),
        ]
    )
    _bar_layout(figure, title)
    figure.update_layout(
        barmode="stack",
        yaxis={"title": "tokens"},
        yaxis2={"title": "USD", "overlaying": "y", "side": "right", "rangemode": "tozero", "showgrid": False},
    )
    figure.update_xaxes(type="category")
    return figure


def run_charts(branches: Sequence[BranchRow], cost_entries: Iterable[Any], key_prefix: str) -> None:
    """Iterations per branch, and cost and tokens per branch and per node."""
    entries = list(cost_entries)
    numbers = branch_numbers(branches)
    if branches:
        st.plotly_chart(iterations_figure(branches), key=f"{key_prefix}_iterations", config={"displaylogo": False})
    if not entries:
        st.caption("No LLM calls recorded yet.")
        return
    left, right = st.columns(2)
    with left:
        st.plotly_chart(
            usage_figure(usage_by(entries, "branch", numbers), "Cost and tokens per branch"),
            key=f"{key_prefix}_by_branch",
            config={"displaylogo": False},
        )
    with right:
        st.plotly_chart(
            usage_figure(usage_by(entries, "node"), "Cost and tokens per step"),
            key=f"{key_prefix}_by_node",
            config={"displaylogo": False},
        )
