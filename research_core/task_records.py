"""The tasks `coordinate` hands out, one `Send` each: a record per kind, naming the node it starts.

- `ChainTask`: research one branch step after step (`research_chain`), then answer it.
- `SynthesisTask`: write one branch's cited answer (`synthesize_branch`).
- `RevisionTask`: ask the reviser about the pending plan (`revise_plan`).

The run's config is not in a task: every node reads it from the runtime context
(`Services.config`). Findings and sources travel as the dumps of `Finding` and `Source`, as the
state holds them. A checkpoint from before these records holds each task as
`{"node": ..., "payload": {...}}`; `task_from_state` reads either form, and each node validates
its payload, so such a run resumes as is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from research_core.schemas import SubQuestion


class ChainTask(BaseModel):
    """One branch's research chain: its share of the run's steps and dollars, and what it knows."""

    model_config = ConfigDict(extra="ignore")
    node: ClassVar[str] = "research_chain"

    question: str
    branch: SubQuestion
    known_findings: list[dict] = Field(default_factory=list, description="Finding dumps of the branch so far")
    known_sources: list[dict] = Field(default_factory=list, description="Source dumps those findings cite")
    answer_when_done: bool = True
    others_wait: bool = False
    branch_count: int = 0
    # what a drill-down below this branch may draw on (see `coordination.caps.drill_down_room`)
    iterations_left: int = 0
    max_steps: int = 1
    max_cost_usd: float = 0.0


class SynthesisTask(BaseModel):
    """One branch's answer: its findings, its completed children, and the sources any of them cite."""

    model_config = ConfigDict(extra="ignore")
    node: ClassVar[str] = "synthesize_branch"

    question: str = ""
    branch: SubQuestion
    findings: list[dict] = Field(default_factory=list, description="Finding dumps")
    children: list[SubQuestion] = Field(default_factory=list)
    sources: list[dict] = Field(default_factory=list, description="Source dumps")


class RevisionTask(BaseModel):
    """The pending plan shown to the reviser after the branches in `finished` completed."""

    model_config = ConfigDict(extra="ignore")
    node: ClassVar[str] = "revise_plan"

    question: str
    branches: dict[str, SubQuestion]
    branch_order: list[str]
    finished: list[str]
    revisions_done: int = 0


Task = ChainTask | SynthesisTask | RevisionTask
TASK_KINDS: dict[str, type[ChainTask] | type[SynthesisTask] | type[RevisionTask]] = {
    kind.node: kind for kind in (ChainTask, SynthesisTask, RevisionTask)
}


def task_from_state(task: Task | dict[str, Any]) -> Task:
    """A task as `coordinate` stored it: a record, or the `{"node", "payload"}` dict of an older checkpoint."""
    if isinstance(task, ChainTask | SynthesisTask | RevisionTask):
        return task
    return TASK_KINDS[task["node"]].model_validate(task["payload"])
