"""Iterations a branch left unused go to the approved branches that have not started yet.

Each branch's allocation is fixed before research (its priority's share of the run's budget), and
a branch that finds enough early stops short of it. Those iterations used to lie idle while a
branch after it ran out: in a 12-iteration run of three branches (3, 2 and 2 iterations) the first
branch often stopped after 2, and the third ended "iteration budget spent (2/2)" with no
evidence, so that part of the report said nothing. The rule: when chains start, the run's
iterations left beyond what every approved branch with research left still has of its allocation
are shared between the approved branches starting their research now, evenly, the earlier ones
in the plan's order taking the remainder, none past the per-branch maximum. Drill-down children
draw on what is left after that, as before: an approved branch is funded first.
"""

from __future__ import annotations

from research_core.coordination.allotments import allocation_left
from research_core.coordination.pass_state import CoordinationPass, coordinate_log
from research_core.coordination.scheduling import is_drill_down_child
from research_core.schemas import FINAL_STATUSES


def surplus_iterations(p: CoordinationPass, iterations_left: int) -> int:
    """What the approved branches whose research is done left of their allocations, as far as the
    run's iterations left cover it once every approved branch with research left has its own."""
    approved = {bid: b for bid, b in p.branches.items() if not is_drill_down_child(p.branches, bid)}
    unused = sum(
        max(0, (b.allocated_iterations or 0) - b.iteration_count)
        for b in approved.values()
        if b.research_done and b.status != "skipped"
    )
    owed = sum(allocation_left(b) for b in approved.values() if b.status not in FINAL_STATUSES and not b.research_done)
    return min(unused, iterations_left - owed)


def share_surplus(p: CoordinationPass, iterations_left: int, starting: list[str]) -> None:
    """Raise the allocation of each approved branch in `starting` that has not researched yet by its
    share of `surplus_iterations` (see the module docstring), logging what each takes."""
    fresh = [
        bid for bid in starting if p.branches[bid].iteration_count == 0 and not is_drill_down_child(p.branches, bid)
    ]
    surplus = surplus_iterations(p, iterations_left)
    if surplus <= 0 or not fresh:
        return
    ceiling = p.config.sub_question_max_iterations
    for k, bid in enumerate(fresh):
        branch = p.branches[bid]
        share = surplus // len(fresh) + (1 if k < surplus % len(fresh) else 0)
        allocated = branch.allocated_iterations or 1
        raised = min(ceiling, allocated + share)
        if raised <= allocated:
            continue
        p.change(bid, {"allocated_iterations": raised})
        p.log.append(
            coordinate_log(
                f"{bid} takes {raised - allocated} iteration(s) the branches before it left unused "
                f"({allocated} → {raised}).",
                kind="budget",
                branch=bid,
            )
        )
