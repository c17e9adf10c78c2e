"""The run's caps: the cost cap (keeping what synthesis still needs) and the iteration budget.

`measure_caps` says where the run stands; `apply_caps` also warns, once per run, when a cap
stops research. The rules themselves are the small pure functions below.
"""

from __future__ import annotations

from dataclasses import dataclass

from research_core.configuration import RunConfig
from research_core.coordination.pass_state import CoordinationPass, coordinate_log
from research_core.coordination.scheduling import is_drill_down_child
from research_core.llm.costs import total_cost
from research_core.planning.budget import reserve_synthesis_cost, run_iteration_cap
from research_core.schemas import FINAL_STATUSES, SubQuestion
from research_core.services import Services
from research_core.state import ResearchState


@dataclass(frozen=True)
class Caps:
    """Where the run stands against its caps: cost spent and reserved, iterations used of the cap."""

    spent: float
    reservation: float
    exhausted: bool
    used: int
    cap: int
    out_of_iterations: bool

    @property
    def halted(self) -> bool:
        """Whether research must stop: the cost cap or the iteration budget is reached."""
        return self.exhausted or self.out_of_iterations

    @property
    def halt_reason(self) -> str:
        """The stop reason given to branches whose research is halted."""
        return "cost cap reached" if self.exhausted else "iteration budget spent"

    @property
    def iterations_left(self) -> int:
        """Research iterations the run may still spend."""
        return self.cap - self.used


def cost_cap_reached(spent: float, reservation: float, max_cost_usd: float) -> bool:
    """The cost cap is reached once something was spent and spent + reservation reaches the cap."""
    return spent > 0 and spent + reservation >= max_cost_usd


def open_branch_count(branches: dict[str, SubQuestion]) -> int:
    """Branches not yet in a final status (each still needs its answer written)."""
    return sum(1 for b in branches.values() if b.status not in FINAL_STATUSES)


def iterations_used(branches: dict[str, SubQuestion]) -> int:
    """Research iterations spent by every branch of the run."""
    return sum(b.iteration_count for b in branches.values())


def minimum_owed(floor: int, branch: SubQuestion) -> int:
    """Iterations `branch` is still owed of its minimum (`floor`, or its allocation when smaller)."""
    return max(0, min(floor, branch.allocated_iterations or floor) - branch.iteration_count)


def drill_down_room(config: RunConfig, branches: dict[str, SubQuestion], bid: str) -> int:
    """Iterations a drill-down below branch `bid` may draw on: the run's ceiling once a child is
    counted (each branch keeps an iteration back for its answer), less what every branch has spent
    and less the minimum still owed to every other unfinished branch. An approved branch is funded
    before any drill-down child, so a drill-down never leaves one unresearched."""
    active = [b for b in branches.values() if b.status != "skipped"]
    cap = run_iteration_cap(config.max_iterations, len(active) + 1, flat=False)
    floor = config.sub_question_min_iterations
    owed = sum(
        minimum_owed(floor, b) for other, b in branches.items() if other != bid and b.status not in FINAL_STATUSES
    )
    return cap - iterations_used(branches) - owed


def minimum_owed_to_approved(config: RunConfig, branches: dict[str, SubQuestion]) -> int:
    """Iterations still owed to the approved branches with research left: each one's minimum, less what it spent."""
    floor = config.sub_question_min_iterations
    return sum(
        minimum_owed(floor, b)
        for bid, b in branches.items()
        if b.status not in FINAL_STATUSES and not b.research_done and not is_drill_down_child(branches, bid)
    )


def drill_down_children_room(config: RunConfig, branches: dict[str, SubQuestion], iterations_left: int) -> int:
    """Iterations the drill-down children may research with now: what the run has left once every
    approved branch with research left has its minimum (the scheduler shares it between them)."""
    return iterations_left - minimum_owed_to_approved(config, branches)


def research_unfinished(branches: dict[str, SubQuestion]) -> bool:
    """Whether some branch still pending or researching has research left to do."""
    return any(b.status in ("pending", "researching") and not b.research_done for b in branches.values())


def measure_caps(state: ResearchState, p: CoordinationPass, services: Services) -> Caps:
    """Where the run stands: spent and reserved dollars, iterations used of the run's ceiling.

    The iteration budget covers the whole run, drill-downs and revisions included.
    """
    spent = total_cost(state.get("costs", []))
    reservation = reserve_synthesis_cost(
        services.llm.price("work"),
        services.llm.price("synthesis"),
        verify_citations=p.config.verify_citations,
        coverage_check=p.config.coverage_check,
    ).total(open_branch_count(p.branches))
    exhausted = cost_cap_reached(spent, reservation, p.config.max_total_cost_usd)
    active = [b for b in p.branches.values() if b.status != "skipped"]
    used = iterations_used(p.branches)
    cap = run_iteration_cap(p.config.max_iterations, len(active), flat=state.get("mode") == "flat")
    return Caps(spent, reservation, exhausted, used, cap, out_of_iterations=used >= cap)


def apply_caps(state: ResearchState, p: CoordinationPass, services: Services) -> Caps:
    """Check the cost cap (keeping the synthesis reservation) and the run's iteration ceiling.

    Each is warned about once per run (the iteration budget only while research is still unfinished).
    """
    caps = measure_caps(state, p, services)
    if caps.exhausted and not state.get("budget_exhausted_logged"):
        message = (
            f"Cost cap reached: ${caps.spent:.4f} spent of ${p.config.max_total_cost_usd:.2f} "
            f"(${caps.reservation:.4f} kept for synthesis). Research stopped; synthesis continues."
        )
        p.warnings.append(message)
        p.log.append(coordinate_log(message, kind="budget"))
        p.extra["budget_exhausted_logged"] = True
    if (
        caps.out_of_iterations
        and not caps.exhausted
        and research_unfinished(p.branches)
        and not state.get("iterations_exhausted_logged")
    ):
        message = f"Iteration budget spent ({caps.used} research iterations of {caps.cap}); remaining research stopped."
        p.warnings.append(message)
        p.log.append(coordinate_log(message, kind="budget"))
        p.extra["iterations_exhausted_logged"] = True
    return caps
