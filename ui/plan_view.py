"""The Review page's pieces: the plan editor, the tree preview and the budget of an edited plan.

The rules behind them (rows, validation, estimates) live in `ui.plan_table`; this module only
draws. Sub-question texts come from the LLM and are escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from research_core.configuration import RunConfig
from ui import plan_table
from ui.widgets import esc, format_cost


def plan_editor(rows: Sequence[dict[str, Any]], key: str) -> pd.DataFrame:
    """The editable plan table: order, id, sub-question, priority, rationale, parent id; rows can be added."""
    return st.data_editor(
        plan_table.to_frame(rows),
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        column_order=plan_table.COLUMNS,
        column_config={
            "order": st.column_config.NumberColumn(
                "order", help="Position in the plan; change it to reorder", step=1, format="%d", width="small"
            ),
            "id": st.column_config.TextColumn("id", help="Leave empty on new rows; an id is assigned", width="small"),
            "question_text": st.column_config.TextColumn(
                "sub-question", help="A focused, researchable question", width="large", max_chars=2000
            ),
            "priority": st.column_config.NumberColumn(
                "priority",
                help="Importance 0-1; the iteration budget is split by priority",
                min_value=0.0,
                max_value=1.0,
                step=0.05,
                format="%.2f",
                default=0.5,
                width="small",
            ),
            "rationale": st.column_config.TextColumn("rationale", width=160),
            "parent_id": st.column_config.TextColumn(
                "parent id", help="Id of the sub-question this one refines (empty = top level)", width="small"
            ),
        },
    )


def tree_markdown(check: plan_table.PlanCheck, est: plan_table.Estimate) -> str:
    """The checked plan as an indented Markdown list in tree order: number, question, id, priority, budget."""
    if check.plan is None:
        return ""
    lines = []
    by_id = {sq.id: sq for sq in check.plan.sub_questions}
    for sq in (by_id[i] for i in check.tree):
        indent = "    " * sq.depth
        budget = "unfunded" if sq.id in est.unfunded else f"{est.iterations.get(sq.id, 0)} iterations"
        lines.append(
            f"{indent}- **{check.numbers.get(sq.id, '')}** {esc(sq.question_text)}  \n"
            f"{indent}  :gray[{esc(sq.id)} · priority {sq.priority:.2f} · {budget}]"
        )
    return "\n".join(lines)


def budget_panel(est: plan_table.Estimate, config: RunConfig) -> None:
    """Research iterations and the estimated cost range of the plan, and how the budget is split."""
    st.markdown("##### Budget")
    st.metric("Research iterations", est.total_iterations, border=True)
    st.metric("Estimated cost", f"{format_cost(est.cost_low)} – {format_cost(est.cost_high)}", border=True)
    st.caption(
        f"{config.max_iterations} iterations in total, less one per branch synthesis, the plan and the "
        f"report; each branch gets {config.sub_question_min_iterations}–"
        f"{config.sub_question_max_iterations} by priority."
    )
    if est.note:
        st.warning(esc(est.note), icon=":material/money_off:")
