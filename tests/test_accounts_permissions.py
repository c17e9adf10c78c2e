"""The rules of who may do what (research_core/accounts/permissions.py), role by role, as one table."""

from __future__ import annotations

import pytest

from research_core.accounts import permissions as p
from research_core.accounts.records import LOCAL_USER, User
from research_core.runs.records import RunSummary

ADMIN = User("root", "admin")
ALICE = User("alice", "researcher")
BOB = User("bob", "researcher")
VERA = User("vera", "viewer")


def run(owner: str | None, visibility: str | None) -> RunSummary:
    return RunSummary(
        id="r1",
        question="Q",
        mode="hierarchical",
        status="completed",
        template="general",
        created_at=None,
        updated_at=None,
        totals=None,
        error=None,
        parent_run_id=None,
        owner_pid=None,
        owner_token=None,
        owner=owner,
        visibility=visibility,
    )


ALICE_PRIVATE = run("alice", "private")
ALICE_SHARED = run("alice", "team")
ALICE_UNSET = run("alice", None)  # an owned run with no recorded visibility is private
LEGACY = run(None, None)  # recorded before accounts: the local user's, open to all

READ, STEER, DELETE, SHARE, FORK = (p.may_read, p.may_steer, p.may_delete, p.may_share, p.may_fork)

# (user, run) -> what they may do: read, steer, delete, share, fork
RULES = [
    (ALICE, ALICE_PRIVATE, (1, 1, 1, 1, 1)),
    (ALICE, ALICE_SHARED, (1, 1, 1, 1, 1)),
    (BOB, ALICE_PRIVATE, (0, 0, 0, 0, 0)),
    (BOB, ALICE_UNSET, (0, 0, 0, 0, 0)),
    (BOB, ALICE_SHARED, (1, 0, 0, 0, 1)),
    (ADMIN, ALICE_PRIVATE, (0, 0, 0, 0, 0)),  # an admin does not read someone's private run either
    (ADMIN, ALICE_SHARED, (1, 0, 0, 0, 1)),
    (VERA, ALICE_PRIVATE, (0, 0, 0, 0, 0)),
    (VERA, ALICE_SHARED, (1, 0, 0, 0, 0)),
    (BOB, LEGACY, (1, 0, 0, 0, 1)),
    (VERA, LEGACY, (1, 0, 0, 0, 0)),
    (ADMIN, LEGACY, (1, 1, 1, 1, 1)),
    (LOCAL_USER, LEGACY, (1, 1, 1, 1, 1)),  # no accounts: the local user may do everything, as before
    (User("alice", "viewer"), ALICE_PRIVATE, (1, 0, 0, 0, 0)),  # a researcher demoted to viewer keeps reading
]


@pytest.mark.parametrize(("user", "target", "allowed"), RULES)
def test_what_each_role_may_do_with_a_run(user, target, allowed):
    got = tuple(int(rule(user, target)) for rule in (READ, STEER, DELETE, SHARE, FORK))
    assert got == allowed
    assert p.read_only(user, target) == (allowed[0] == 1 and allowed[1] == 0)


@pytest.mark.parametrize(
    ("user", "start", "manage", "settings", "library"),
    [(ADMIN, 1, 1, 1, 1), (ALICE, 1, 0, 0, 1), (VERA, 0, 0, 0, 0), (LOCAL_USER, 1, 1, 1, 1)],
)
def test_what_each_role_may_do_besides_runs(user, start, manage, settings, library):
    assert (p.may_start(user), p.may_manage_users(user), p.may_change_settings(user), p.may_edit_library(user)) == (
        bool(start),
        bool(manage),
        bool(settings),
        bool(library),
    )


def test_visibility_as_recorded_or_as_the_owner_implies():
    assert [p.visibility_of(r) for r in (ALICE_PRIVATE, ALICE_SHARED, ALICE_UNSET, LEGACY)] == [
        "private",
        "team",
        "private",
        "team",
    ]
    assert p.visibility_of(run(None, "private")) == "private"
    assert not p.may_read(BOB, run(None, "private")) and p.may_read(ADMIN, run(None, "private"))
