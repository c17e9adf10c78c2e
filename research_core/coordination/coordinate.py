"""coordinate: between chains, open the gates (step, revision, drill-down) and schedule what runs next.

Research is scheduled as chains (`research_core/research/chain.py`): a branch keeps researching, and
is answered, without coming back here until its research is done or its share of the caps is used
up. When something waits for a branch to finish, the chains run a segment and come back sooner.

One pass is a sequence of named steps over a `CoordinationPass` (`pass_state`), each in the module
of its concept: the gates (`gates`), hypothesis pivots (`pivots`), the cost and iteration caps
(`caps`), which branches research or are answered next (`scheduling`), the hold for a plan
revision (`revision_hold`) and the tasks handed out (`tasks`, sized by `allotments`).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_core.coordination.caps import Caps, apply_caps, drill_down_children_room
from research_core.coordination.gates import decide_drill_downs, open_revision_gate, open_step_gate
from research_core.coordination.pass_state import CoordinationPass, coordinate_log
from research_core.coordination.pivots import take_hypothesis_pivots
from research_core.coordination.revision_hold import hold_for_revision
from research_core.coordination.scheduling import Schedule, schedule_steps
from research_core.coordination.surplus import share_surplus
from research_core.coordination.tasks import findings_index, research_tasks, synthesis_task
from research_core.services import Services
from research_core.state import ResearchState
from research_core.task_records import Task


def schedule(p: CoordinationPass, counts: dict[str, int], caps: Caps) -> Schedule:
    """Ask the scheduler what researches and what is answered next, and record its decisions."""
    plan = schedule_steps(
        p.branches,
        p.order,
        counts,
        p.config.parallel,
        stop_requested=p.stop,
        budget_exhausted=caps.halted,
        halt_reason=caps.halt_reason,
        drill_down_room=drill_down_children_room(p.config, p.branches, caps.iterations_left),
    )
    for bid, fields in plan.updates.items():
        p.change(bid, fields)
    for note in plan.notes:
        p.log.append(coordinate_log(note))
    return plan


def next_tasks(state: ResearchState, p: CoordinationPass, caps: Caps) -> list[Task]:
    """The tasks of the next step: branch answers, a plan revision, then research chains."""
    counts, findings_by_branch = findings_index(state.get("findings", []))
    plan = schedule(p, counts, caps)
    research_ids, revise_task = hold_for_revision(state, p, list(plan.research), caps.exhausted)
    share_surplus(p, caps.iterations_left, research_ids)
    sources_by_id = {s["id"]: s for s in state.get("sources", [])}
    tasks: list[Task] = [
        synthesis_task(state, p, bid, findings_by_branch.get(bid, []), sources_by_id) for bid in plan.synthesize
    ]
    if revise_task is not None:
        tasks.append(revise_task)
    tasks += research_tasks(
        state, p, caps, research_ids, plan.synthesize, findings_by_branch, sources_by_id, limits=plan.limits
    )
    return tasks


def coordinate(state: ResearchState, runtime: Runtime[Services]) -> dict:
    """Gates (step, revision, drill-down), pivots, caps, then the scheduling of the next chains and syntheses."""
    p = CoordinationPass.from_state(state, runtime.context.config)
    open_step_gate(state, p)
    open_revision_gate(state, p)
    decide_drill_downs(state, p)
    take_hypothesis_pivots(p)
    caps = apply_caps(state, p, runtime.context)
    return p.state_update(next_tasks(state, p, caps))
