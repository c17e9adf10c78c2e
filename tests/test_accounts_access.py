"""The run API as one user may use it (research_core/accounts/access.py), on both engines (`db`).

Alice and Bob research, Vera only reads, Root administers. A run is private to its owner until
shared; a refusal for someone else's private run is word for word the refusal for a run that does
not exist.
"""

from __future__ import annotations

import pytest

from research_core.accounts.access import UserRuns, fork_plan
from research_core.accounts.records import User
from research_core.runs.errors import RunError
from research_core.runs.store import RunStore
from tests.conftest import config, make_runner

pytestmark = pytest.mark.timeout(180)

QUESTION = "Compare React, Vue, and Angular for building web applications"
ALICE, BOB = User("alice", "researcher"), User("bob", "researcher")
VERA, ROOT = User("vera", "viewer"), User("root", "admin")
MISSING = "20990101-000000-abcdef"


@pytest.fixture
def people(tmp_path, scripted, db):
    url, _ = scripted
    runner = make_runner(tmp_path, url, db=db)
    return runner, {u.name: UserRuns(runner, u) for u in (ALICE, BOB, VERA, ROOT)}


def refusal(run_id: str) -> str:
    return f"No run {run_id} you can open."


def refused(call, *args, **kwargs) -> str:
    with pytest.raises(RunError) as caught:
        call(*args, **kwargs)
    return str(caught.value)


def test_a_private_run_is_its_owners_alone_and_refused_like_a_missing_one(people):
    runner, as_ = people
    snap = as_["alice"].start(QUESTION, config(auto_approve=True))
    run_id = snap.run_id
    assert snap.status == "completed"
    record = runner.store.get(run_id)
    assert (record.owner, record.visibility) == ("alice", "private")
    assert [r.id for r in as_["alice"].runs()] == [run_id]

    for name in ("bob", "vera", "root"):  # an admin does not read a private run either
        them = as_[name]
        assert them.runs() == []
        assert not them.is_active(run_id)
        calls = [
            (them.snapshot, (run_id,), {}),
            (them.result, (run_id,), {}),
            (them.llm_record, (run_id,), {}),
            (them.events, (run_id,), {}),
            (them.wait, (run_id, 1), {}),
            (them.rights, (run_id,), {}),
            (them.resume, (run_id, "approve"), {}),
            (them.resume_background, (run_id,), {}),
            (them.enqueue_resume, (run_id, "approve"), {}),
            (them.request_stop, (run_id,), {}),
            (them.prepare_rerun, (run_id, "sq_001"), {}),
            (them.delete, (run_id,), {}),
            (them.set_visibility, (run_id, "team"), {}),
            (them.fork, (run_id,), {}),
        ]
        for call, args, kwargs in calls:
            assert refused(call, *args, **kwargs) == refusal(run_id)
            missing_args = (MISSING, *args[1:])
            assert refused(call, *missing_args, **kwargs) == refusal(MISSING)  # the same words
    assert runner.store.get(run_id) is not None  # nothing happened to it
    assert not runner.store.stop_requested(run_id) and runner.store.get(run_id).status == "completed"


def test_a_shared_run_opens_read_only_and_forks_into_a_run_of_ones_own(people):
    runner, as_ = people
    original = as_["alice"].start(QUESTION, config(auto_approve=True))
    as_["alice"].set_visibility(original.run_id, "team")
    bob = as_["bob"]
    assert [r.id for r in bob.runs()] == [original.run_id]
    assert bob.snapshot(original.run_id).status == "completed"
    assert bob.result(original.run_id).final_answer
    rights = bob.rights(original.run_id)
    assert (rights.owner, rights.visibility, rights.read_only, rights.fork) == ("alice", "team", True, True)
    for call, args, doing in [
        (bob.resume, (original.run_id,), "steer"),
        (bob.resume_background, (original.run_id, "continue"), "steer"),
        (bob.prepare_rerun, (original.run_id, "sq_001"), "re-run"),
        (bob.rerun_branch, (original.run_id, "sq_001"), "re-run"),
        (bob.delete, (original.run_id,), "delete"),
        (bob.set_visibility, (original.run_id, "private"), "share"),
    ]:
        message = refused(call, *args)
        assert message == (
            f"Run {original.run_id} is alice's, shared with you read-only: you can open or fork it, not {doing} it."
        )

    fork_id = bob.fork(original.run_id)
    fork = runner.store.get(fork_id)
    assert (fork.owner, fork.visibility, fork.question, fork.parent_run_id) == ("bob", "private", QUESTION, None)
    assert fork.config["auto_approve"] is False
    copied = [(r["id"], r["question_text"]) for r in fork_plan(runner.snapshot(original.run_id))]
    assert [(sq["id"], sq["question_text"]) for sq in fork.plan["sub_questions"]] == copied
    snap = bob.resume(fork_id)  # the fork stops at the plan review with the copied plan
    assert snap.status == "awaiting_review"
    assert [sq["question_text"] for sq in snap.pending["sub_questions"]] == [text for _id, text in copied]
    assert fork_id not in {r.id for r in as_["alice"].runs()}  # Bob's fork is private to Bob
    assert refused(as_["alice"].snapshot, fork_id) == refusal(fork_id)

    as_["alice"].set_visibility(original.run_id, "private")  # unshared: refused again, as if it never existed
    assert refused(bob.snapshot, original.run_id) == refusal(original.run_id)


def test_a_viewer_reads_shared_runs_and_starts_nothing(people):
    _runner, as_ = people
    run_id = as_["alice"].start(QUESTION, config(auto_approve=True)).run_id
    as_["alice"].set_visibility(run_id, "team")
    vera = as_["vera"]
    assert vera.result(run_id).final_answer and vera.rights(run_id).read_only and not vera.rights(run_id).fork
    for call, args in [
        (vera.start, (QUESTION, config())),
        (vera.start_background, (QUESTION, config())),
        (vera.create_run, (QUESTION, config())),
        (vera.propose_plan, (QUESTION, config())),
        (vera.fork, (run_id,)),
    ]:
        assert refused(call, *args).startswith("Your role (viewer) reads runs only")
    assert refused(vera.delete, run_id) == "Your role (viewer) reads runs only; it cannot delete one."
    assert refused(lambda: vera.page_cache) == "Only an admin manages the page cache."
    assert as_["root"].page_cache is not None


def test_runs_from_before_accounts_stay_open_to_all_and_an_admin_manages_them(people):
    runner, as_ = people
    legacy = runner.start(QUESTION, config(auto_approve=True)).run_id  # no owner: the local user's
    assert runner.store.get(legacy).owner is None
    for name in ("alice", "bob", "vera", "root"):
        assert [r.id for r in as_[name].runs()] == [legacy]
        assert as_[name].result(legacy) is not None
    assert as_["bob"].rights(legacy).owner == "local" and as_["bob"].rights(legacy).read_only
    assert refused(as_["bob"].delete, legacy).startswith(f"Run {legacy} is local's, shared with you read-only")
    assert as_["root"].rights(legacy).steer
    assert as_["root"].delete(legacy) and runner.store.get(legacy) is None


def test_a_branch_re_run_belongs_to_the_owner_of_the_run_it_re_runs(people):
    runner, as_ = people
    alice = as_["alice"]
    run_id = alice.start(QUESTION, config(auto_approve=True)).run_id
    snap = alice.rerun_branch(run_id, "sq_001", question_text="How does React render components?")
    record = runner.store.get(snap.run_id)
    assert (record.owner, record.visibility, record.parent_run_id) == ("alice", "private", run_id)
    assert {r.id for r in alice.runs()} == {run_id, snap.run_id}
    assert as_["bob"].runs() == []


def test_the_owner_shares_and_deletes_their_own_run(people):
    runner, as_ = people
    alice = as_["alice"]
    run_id = alice.create_run(QUESTION, config())
    with pytest.raises(RunError, match="unknown visibility 'public'"):
        alice.set_visibility(run_id, "public")
    alice.set_visibility(run_id, "team")
    assert runner.store.get(run_id).visibility == "team"
    assert alice.delete(run_id) and runner.store.get(run_id) is None


def test_the_list_keeps_the_readable_runs_before_it_cuts(tmp_path):
    store = RunStore(tmp_path / "arbor.db")
    for n in range(5):
        store.create(f"bob-{n}", "Q", {}, owner="bob")
    store.create("alice-0", "Q", {}, owner="alice")
    for n in range(5):
        store.create(f"bob-{n + 5}", "Q", {}, owner="bob")
    assert [r.id for r in store.list(limit=3, keep=lambda r: r.owner == "alice")] == ["alice-0"]
    assert len(store.list(limit=3)) == 3
    store.close()
