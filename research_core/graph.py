"""Wire the research graph: nodes and routing only, no prompts and no business rules."""

from __future__ import annotations

import functools
from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Send

from research_core.coordination.coordinate import coordinate
from research_core.planning.allocate import allocate_budget
from research_core.planning.classify import classify_question
from research_core.planning.decompose import decompose_question
from research_core.planning.review import review_plan
from research_core.planning.revise import revise_plan
from research_core.research.chain import branch_chain
from research_core.services import Services
from research_core.state import ResearchInput, ResearchOutput, ResearchState, branches_of
from research_core.synthesis.coverage import assess_coverage
from research_core.synthesis.meta import meta_synthesize
from research_core.synthesis.synthesize import synthesize_branch
from research_core.task_records import task_from_state


def route_after_classify(state: ResearchState) -> Literal["decompose_question", "allocate_budget"]:
    """Complex questions are decomposed; simple ones go straight to flat research."""
    return "decompose_question" if state.get("mode") in ("hierarchical", "hypothesis") else "allocate_budget"


def route_after_decompose(state: ResearchState) -> Literal["review_plan", "allocate_budget"]:
    """A failed decomposition has switched the run to flat mode."""
    return "review_plan" if state.get("mode") in ("hierarchical", "hypothesis") else "allocate_budget"


def route_after_review(state: ResearchState) -> Literal["allocate_budget", "__end__"]:
    """A cancelled review ends the run."""
    return END if state.get("status") == "cancelled" else "allocate_budget"


def route_work(state: ResearchState) -> list[Send] | Literal["assess_coverage"]:
    """Fan out the steps `coordinate` scheduled, or move on to the coverage check and report."""
    tasks = state.get("next_tasks") or []
    if not tasks:
        return "assess_coverage"
    return [Send(task.node, task) for task in map(task_from_state, tasks)]


def route_after_coverage(state: ResearchState) -> Literal["coordinate", "meta_synthesize"]:
    """Hypothesis mode may add hypotheses for the gaps; those are researched before the report."""
    pending = any(b.status == "pending" for b in branches_of(state).values())
    return "coordinate" if pending and not state.get("stop_requested") else "meta_synthesize"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """The research graph bound to `checkpointer`.

    Compiling costs tens of milliseconds (LangGraph inspects every node's bytecode), and the runner
    opens a graph for every drive and every live-view snapshot, so the graph is compiled once per
    process and each caller gets a copy bound to its own checkpointer.
    """
    return _compiled_graph().copy(update={"checkpointer": checkpointer})


@functools.cache
def _compiled_graph() -> CompiledStateGraph:
    builder = StateGraph(
        ResearchState, context_schema=Services, input_schema=ResearchInput, output_schema=ResearchOutput
    )
    builder.add_node(classify_question)
    builder.add_node(decompose_question)
    builder.add_node(review_plan)
    builder.add_node(allocate_budget)
    builder.add_node(coordinate)
    builder.add_node("research_chain", branch_chain())
    builder.add_node(synthesize_branch)
    builder.add_node(revise_plan)
    builder.add_node(assess_coverage)
    builder.add_node(meta_synthesize)

    builder.add_edge(START, "classify_question")
    builder.add_conditional_edges("classify_question", route_after_classify)
    builder.add_conditional_edges("decompose_question", route_after_decompose)
    builder.add_conditional_edges("review_plan", route_after_review)
    builder.add_edge("allocate_budget", "coordinate")
    builder.add_conditional_edges(
        "coordinate", route_work, ["research_chain", "synthesize_branch", "revise_plan", "assess_coverage"]
    )
    builder.add_edge("research_chain", "coordinate")
    builder.add_edge("synthesize_branch", "coordinate")
    builder.add_edge("revise_plan", "coordinate")
    builder.add_conditional_edges("assess_coverage", route_after_coverage)
    builder.add_edge("meta_synthesize", END)
    return builder.compile()
