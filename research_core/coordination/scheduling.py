"""Which branch steps run next: pure scheduling, easy to test.

Branch syntheses go first (they unblock the report), then branches already being researched,
then pending ones by priority. At most `parallel` steps run at once, so `parallel=1` runs the
branches one after another: one branch researched to the end, synthesized, then the next
highest priority.

A drill-down child only starts while the run has iterations beyond the minimum still owed to the
approved branches (`drill_down_room`), and draws on no more than that: a drill-down never leaves
an approved branch unresearched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from research_core.coordination.allotments import allocation_left
from research_core.schemas import FINAL_STATUSES, SubQuestion
from research_core.tree import BranchTree


def is_drill_down_child(branches: Mapping[str, SubQuestion], bid: str) -> bool:
    """Whether branch `bid` was added by a drill-down (its parent's drill-down was approved), not in the plan."""
    parent = branches.get(branches[bid].parent_id or "")
    return parent is not None and parent.drill_status == "approved"


@dataclass
class Schedule:
    """The next steps, and the branch updates that scheduling itself decided."""

    research: list[str] = field(default_factory=list)
    synthesize: list[str] = field(default_factory=list)
    updates: dict[str, dict] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # the most iterations each drill-down child started now may use (what `drill_down_room` leaves it)
    limits: dict[str, int] = field(default_factory=dict)


def fund_drill_downs(
    branches: Mapping[str, SubQuestion], candidates: list[str], room: int | None
) -> tuple[list[str], dict[str, int]]:
    """The candidates that may start, and each drill-down child's share of `room`, in the candidates' order.

    A child takes what it has left of its allocation while `room` lasts; one left with nothing waits.
    `room` None: no limit.
    """
    if room is None:
        return candidates, {}
    started, limits = [], {}
    for bid in candidates:
        if not is_drill_down_child(branches, bid):
            started.append(bid)
        elif room > 0:
            limits[bid] = min(allocation_left(branches[bid]), room)
            room -= limits[bid]
            started.append(bid)
    return started, limits


def sort_branches(
    out: Schedule,
    branches: Mapping[str, SubQuestion],
    order: list[str],
    finding_counts: Mapping[str, int],
    halt_reason: str | None,
) -> tuple[list[str], list[str]]:
    """(branches to answer, branches to research), in `order`; branches in a final status are neither.

    A branch whose research is done is answered once its drill-down is decided and its children are
    done (bottom-up). When research halts (`halt_reason`), a branch with findings (or already
    started) goes to its answer and an untouched one is skipped; `out` records those updates.
    """
    to_synth: list[str] = []
    to_research: list[str] = []
    tree = BranchTree(branches, order)
    for bid in order:
        b = branches[bid]
        if b.status in FINAL_STATUSES:
            continue
        if b.research_done:
            waiting = b.drill_status == "proposed" or any(
                branches[c].status not in FINAL_STATUSES for c in tree.children(bid)
            )
            if not waiting:
                to_synth.append(bid)
        elif halt_reason is not None:
            if finding_counts.get(bid, 0) > 0 or b.status == "researching":
                out.updates[bid] = {"research_done": True, "stop_reason": halt_reason}
                to_synth.append(bid)
            else:
                out.updates[bid] = {"status": "skipped", "stop_reason": halt_reason}
                out.notes.append(f"{bid} skipped: {halt_reason}.")
        else:
            to_research.append(bid)
    return to_synth, to_research


def schedule_steps(
    branches: Mapping[str, SubQuestion],
    order: list[str],
    finding_counts: Mapping[str, int],
    parallel: int,
    *,
    stop_requested: bool = False,
    budget_exhausted: bool = False,
    halt_reason: str = "cost cap reached",
    drill_down_room: int | None = None,
) -> Schedule:
    """Decide the next research and synthesis steps.

    When the user stopped the run or the cost cap is reached, research ends: branches with
    findings (or already started) go to synthesis, untouched ones are skipped. Drill-down children
    share `drill_down_room` (None: no limit); see `fund_drill_downs`.
    """
    out = Schedule()
    halt_reason = "stopped early by the user" if stop_requested else halt_reason
    to_synth, to_research = sort_branches(
        out, branches, order, finding_counts, halt_reason if stop_requested or budget_exhausted else None
    )
    index = {bid: i for i, bid in enumerate(order)}
    to_research.sort(key=lambda bid: (branches[bid].status != "researching", -branches[bid].priority, index[bid]))
    to_research, limits = fund_drill_downs(branches, to_research, drill_down_room)
    slots = max(1, parallel)
    out.synthesize = to_synth[:slots]
    slots -= len(out.synthesize)
    out.research = to_research[: max(0, slots)]
    out.limits = {bid: n for bid, n in limits.items() if bid in out.research}
    for bid in out.research:
        if branches[bid].status != "researching":
            out.updates.setdefault(bid, {})["status"] = "researching"
    return out
