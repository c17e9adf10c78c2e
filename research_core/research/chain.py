"""research_chain: one branch researched step after step, as its own checkpointed subgraph.

`coordinate` starts a chain per scheduled branch. A chain runs `research_step` again as soon as
its previous step returns, without waiting for the other branches' steps, so a fast branch does
not idle behind a slow one (the round barrier of one-step-per-superstep scheduling). Each step is
a superstep of the chain's own graph, so it is checkpointed like any other step (a SIGKILL loses
at most the step in flight, and a resumed run picks the chain up from its last checkpoint).

When its branch's research is done, the chain writes the branch's answer itself
(`synthesize_branch`), so a branch that finishes early is answered while the others are still
being researched, instead of waiting for the slowest chain to end. It does not when the branch
proposes a drill-down (depth is evaluated only when research stops), or when it already has
sub-questions under it (`answer_when_done` is false): a parent is answered after its children,
with their answers, under `coordinate`. A chain also hands control back when it has used the
iterations or the dollars `coordinate` allotted it, or after one step in step mode (the user
wants every gate); `coordinate` then schedules what follows, synthesis included.

The allotments come with the chain's input and are fixed per chain, so a resumed run makes the
same decisions as an uninterrupted one.
"""

from __future__ import annotations

import functools
import operator
from typing import Annotated, Any, Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from research_core.llm.costs import total_cost
from research_core.research.allotment import iterations_after
from research_core.research.step import research_step
from research_core.schemas import SubQuestion
from research_core.services import Services
from research_core.state import as_branch, merge_branch_updates, with_fields
from research_core.synthesis.synthesize import synthesize_branch
from research_core.task_records import SynthesisTask
from research_core.text.citations import finding_source_ids


class ChainOutput(TypedDict, total=False):
    """What a finished chain adds to the run's state (the parent's reducers merge it)."""

    branches: Annotated[dict[str, dict[str, Any]], merge_branch_updates]  # field updates, not whole branches
    findings: Annotated[list[dict], operator.add]
    sources: Annotated[list[dict], operator.add]
    costs: Annotated[list[dict], operator.add]
    log: Annotated[list[dict], operator.add]
    warnings: Annotated[list[str], operator.add]


class ChainState(ChainOutput, total=False):
    """The chain's input from `coordinate` (the fields of its `ChainTask`) plus what its steps have
    gathered so far.

    The run's config is not part of it: nodes read it from the runtime context. `config` is kept
    only so a chain checkpointed by an older version, whose input carried a copy, resumes as is;
    such a chain also holds its branch as a dict, read with `as_branch`.
    """

    question: str
    config: dict[str, Any]  # unused: the copy older versions handed every chain
    branch: SubQuestion
    known_findings: list[dict]
    known_sources: list[dict]
    answer_when_done: bool
    others_wait: bool
    branch_count: int
    iterations_left: int
    max_steps: int
    max_cost_usd: float
    steps: int


def chain_step(state: ChainState, runtime: Runtime[Services]) -> dict:
    """One research iteration of the chain's branch, with what the chain found so far."""
    branch = as_branch(state["branch"])
    steps = int(state.get("steps") or 0)
    update = research_step(
        {
            "question": state["question"],
            "branch": branch,
            "findings": [*state.get("known_findings", []), *state.get("findings", [])],
            "sources": [*state.get("known_sources", []), *state.get("sources", [])],
            "branch_count": state.get("branch_count", 0),
            "iterations_left": iterations_after(state.get("iterations_left"), steps),
        },
        runtime,
    )
    return {**update, "branch": with_fields(branch, update["branches"][branch.id]), "steps": steps + 1}


def chain_synthesis(state: ChainState, runtime: Runtime[Services]) -> dict:
    """The branch's cited answer from every finding it has, written as soon as its research ends."""
    branch = as_branch(state["branch"])
    findings = [*state.get("known_findings", []), *state.get("findings", [])]
    cited = set(finding_source_ids(findings))
    sources = [s for s in [*state.get("known_sources", []), *state.get("sources", [])] if s["id"] in cited]
    task = SynthesisTask(
        question=state["question"],
        branch=branch,
        findings=findings,
        sources=list({s["id"]: s for s in sources}.values()),
    )
    update = synthesize_branch(task, runtime)
    return {**update, "branch": with_fields(branch, update["branches"][branch.id])}


def chain_continues(state: ChainState) -> Literal["chain_step", "chain_synthesis", "__end__"]:
    """Another step of the same branch, its answer, or back to `coordinate`."""
    branch = as_branch(state["branch"])
    steps = int(state.get("steps") or 0)
    max_steps = int(state.get("max_steps") or 1)
    if branch.research_done:
        if not state.get("answer_when_done") or branch.drill_status == "proposed":
            return END
        # Answering here costs nothing while the other chains are still running. At the end of a
        # segment `coordinate` is waited for (a free slot, a revision, a drill-down), so the answer
        # is left to it, to run beside the next segment instead of before it.
        early = steps < max_steps
        return "chain_synthesis" if early or not state.get("others_wait") else END
    if steps >= max_steps:
        return END
    if total_cost(state.get("costs", [])) >= float(state.get("max_cost_usd", 0.0)):
        return END
    return "chain_step"


@functools.cache
def branch_chain() -> CompiledStateGraph:
    """The compiled chain subgraph (it inherits the run's checkpointer when it runs)."""
    builder = StateGraph(ChainState, context_schema=Services, output_schema=ChainOutput)
    builder.add_node(chain_step)
    builder.add_node(chain_synthesis)
    builder.add_edge(START, "chain_step")
    builder.add_conditional_edges("chain_step", chain_continues, ["chain_step", "chain_synthesis", END])
    builder.add_edge("chain_synthesis", END)
    return builder.compile()
