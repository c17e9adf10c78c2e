"""The plan revision's guarantees, one function at a time (`planning/revision.py`, `text/similarity.py`).

What the user notices: an approved branch survives a revision that would drop or starve it; a
revision adding a question the plan already asks is refused; finished branches are never touched;
the plan never grows past its ceiling; an added branch is researched within the run's limits.
"""

from __future__ import annotations

from research_core.configuration import RunConfig
from research_core.planning.revision import (
    MIN_APPROVED_PRIORITY,
    apply_revision,
    keep_approved_branches,
    vet_revision,
)
from research_core.schemas import PlanRevisionOutput, ProposedSubQuestion, SubQuestion
from research_core.text.similarity import is_near_duplicate

QUESTION_1 = "How does SQLite handle concurrent writers?"
QUESTION_2 = "Which replication options does PostgreSQL offer?"
QUESTION_3 = "What do small teams report about operating PostgreSQL?"


def branches(**status: str) -> dict[str, SubQuestion]:
    """Three top-level branches (sq_001 completed, sq_002 and sq_003 pending unless `status` says otherwise)."""
    texts = {"sq_001": QUESTION_1, "sq_002": QUESTION_2, "sq_003": QUESTION_3}
    defaults = {"sq_001": "completed", "sq_002": "pending", "sq_003": "pending"}
    priorities = {"sq_001": 0.9, "sq_002": 0.8, "sq_003": 0.6}
    return {
        bid: SubQuestion(
            id=bid, question_text=text, priority=priorities[bid], status=status.get(bid, defaults[bid]), parent_id=None
        )
        for bid, text in texts.items()
    }


def proposal(add: list[tuple[str, float]] = (), drop: list[str] = (), reprioritize: dict | None = None):
    return PlanRevisionOutput(
        add=[ProposedSubQuestion(question=q, priority=p) for q, p in add],
        drop=list(drop),
        reprioritize=reprioritize or {},
        reasoning="scripted",
    )


# ---- keep_approved_branches: auto mode never drops or starves an approved branch ----------------------


def test_an_approved_branch_survives_a_revision_that_drops_it() -> None:
    plan = branches()
    changes, _ = vet_revision(proposal(drop=["sq_002"]), plan, RunConfig())
    assert changes["drop"] == ["sq_002"]  # the reviser's proposal is valid ...
    kept, notes = keep_approved_branches(changes, plan)
    assert kept["drop"] == []  # ... but without the user it is only a suggestion
    assert any("sq_002" in n and "Suggestion" in n and QUESTION_2 in n for n in notes), notes
    updates, order = apply_revision(kept, plan, list(plan), RunConfig())
    assert "sq_002" not in updates and order == list(plan)


def test_an_approved_branch_keeps_a_fair_share_of_priority() -> None:
    plan = branches()
    kept, notes = keep_approved_branches({"add": [], "drop": [], "reprioritize": {"sq_002": 0.05}}, plan)
    assert kept["reprioritize"] == {"sq_002": MIN_APPROVED_PRIORITY}
    assert any("sq_002" in n and "0.30" in n and "0.05" in n for n in notes), notes


def test_a_branch_already_below_the_floor_is_not_pushed_lower_nor_raised() -> None:
    plan = branches()
    plan["sq_003"] = plan["sq_003"].model_copy(update={"priority": 0.2})
    kept, _ = keep_approved_branches({"reprioritize": {"sq_003": 0.0}}, plan)
    assert kept["reprioritize"] == {}  # stays at its own 0.2


def test_additions_and_raised_priorities_pass_unchanged() -> None:
    plan = branches()
    added = [{"question_text": "What does SQLite's WAL mode change?", "priority": 0.7, "rationale": "r"}]
    kept, notes = keep_approved_branches({"add": added, "drop": [], "reprioritize": {"sq_003": 0.95}}, plan)
    assert kept["add"] == added and kept["reprioritize"] == {"sq_003": 0.95} and notes == []


# ---- vet_revision: only allowed changes reach the plan -----------------------------------------------------


def test_a_revision_adding_a_near_duplicate_of_a_branch_is_refused() -> None:
    plan = branches()
    restated = "How does SQLite handle concurrent writers"  # sq_001, finished, asked again
    changes, notes = vet_revision(
        proposal(add=[(restated, 0.7), ("What does SQLite's WAL mode change?", 0.6)]), plan, RunConfig()
    )
    assert [a["question_text"] for a in changes["add"]] == ["What does SQLite's WAL mode change?"]
    assert any("refused duplicate" in n and QUESTION_1 in n for n in notes), notes


def test_two_additions_asking_the_same_thing_become_one() -> None:
    new = "Which backup tools exist for PostgreSQL databases?"
    twin = "Which backup tools exist for PostgreSQL databases"
    changes, notes = vet_revision(proposal(add=[(new, 0.7), (twin, 0.6)]), branches(), RunConfig())
    assert [a["question_text"] for a in changes["add"]] == [new]
    assert len(notes) == 1 and "refused duplicate" in notes[0]


def test_additions_stop_at_the_plans_ceiling() -> None:
    plan = branches()
    adds = [("What does SQLite's WAL mode change?", 0.7), ("Which backup tools exist for PostgreSQL?", 0.6)]
    changes, notes = vet_revision(proposal(add=adds), plan, RunConfig(max_total_sub_questions=4))
    assert len(plan) + len(changes["add"]) == 4
    assert any("ceiling of 4" in n for n in notes), notes


def test_only_pending_branches_can_be_dropped_or_reprioritised() -> None:
    plan = branches()
    out = proposal(drop=["sq_001", "sq_002", "sq_099"], reprioritize={"sq_001": 0.1, "sq_003": 0.2})
    changes, notes = vet_revision(out, plan, RunConfig())
    assert changes["drop"] == ["sq_002"]
    assert changes["reprioritize"] == {"sq_003": 0.2}
    assert any("cannot drop sq_001" in n for n in notes) and any("cannot drop sq_099" in n for n in notes)


def test_new_priorities_are_clamped_and_tiny_changes_ignored() -> None:
    plan = branches()
    out = proposal(drop=["sq_002"], reprioritize={"sq_002": 0.1, "sq_003": 0.62})
    changes, _ = vet_revision(out, plan, RunConfig())
    assert changes["reprioritize"] == {}  # sq_002 is dropped anyway; 0.62 is within 0.05 of 0.6
    changes, _ = vet_revision(proposal(reprioritize={"sq_003": 7.0}), plan, RunConfig())
    assert changes["reprioritize"] == {"sq_003": 1.0}


# ---- apply_revision: the updates a run applies ---------------------------------------------------------------


def test_a_dropped_pending_branch_is_skipped_with_its_reason_and_a_finished_one_is_untouched() -> None:
    plan = branches()
    updates, _ = apply_revision({"drop": ["sq_001", "sq_002"]}, plan, list(plan), RunConfig())
    assert updates == {"sq_002": {"status": "skipped", "stop_reason": "dropped by plan revision"}}


def test_a_finished_branch_keeps_its_priority() -> None:
    plan = branches()
    updates, _ = apply_revision({"reprioritize": {"sq_001": 0.1, "sq_003": 0.9}}, plan, list(plan), RunConfig())
    assert updates == {"sq_003": {"priority": 0.9}}


def test_an_added_branch_gets_a_fresh_id_at_the_end_and_iterations_within_the_runs_limits() -> None:
    plan = branches()
    del plan["sq_002"]  # removed at the review: three top-level branches, sq_004 the last
    plan["sq_004"] = plan["sq_003"].model_copy(update={"id": "sq_004", "status": "skipped"})  # keeps its id
    plan["sq_001.1"] = plan["sq_001"].model_copy(update={"id": "sq_001.1", "parent_id": "sq_001"})  # not top-level
    order = list(plan)
    config = RunConfig(sub_question_min_iterations=2, sub_question_max_iterations=4)
    add = [
        {"question_text": "What does SQLite's WAL mode change?", "priority": 1.0, "rationale": "Writers."},
        {"question_text": "Which backup tools exist for PostgreSQL?", "priority": 0.1},
    ]
    updates, new_order = apply_revision({"add": add}, plan, order, config)
    assert new_order == [*order, "sq_005", "sq_006"]
    first, second = updates["sq_005"], updates["sq_006"]
    assert first["question_text"] == add[0]["question_text"] and first["status"] == "pending"
    assert first["rationale"] == "Writers." and first["parent_id"] is None
    assert first["allocated_iterations"] == 4  # priority 1.0: the branch maximum
    assert second["allocated_iterations"] == 2  # priority 0.1: never below the branch minimum
    assert set(plan) & set(updates) == set()  # nothing existing is overwritten


# ---- near-duplicate detection ----------------------------------------------------------------------


def test_a_question_restated_is_a_near_duplicate_and_names_its_twin() -> None:
    existing = [QUESTION_2, QUESTION_1]
    assert is_near_duplicate("how does sqlite handle concurrent writers", existing) == QUESTION_1
    # the same question narrowed by a few words is still the same question
    narrowed = "For small web apps and embedded devices, how does SQLite handle concurrent writers?"
    assert is_near_duplicate(narrowed, existing) == QUESTION_1
    assert is_near_duplicate("SQLiteは同時書き込みをどう扱うか", ["SQLiteは同時書き込みをどう扱うのか"]) is not None


def test_a_different_question_on_the_same_subject_is_not_a_duplicate() -> None:
    existing = [QUESTION_1, QUESTION_2, QUESTION_3]
    assert is_near_duplicate("How does SQLite store its data on disk?", existing) is None
    assert is_near_duplicate("What does PostgreSQL cost to host?", existing) is None
    assert is_near_duplicate(QUESTION_1, []) is None


def test_the_bar_decides() -> None:
    loose = "How does SQLite deal with many writers?"
    assert is_near_duplicate(loose, [QUESTION_1]) is None
    assert is_near_duplicate(loose, [QUESTION_1], threshold=0.6) == QUESTION_1
