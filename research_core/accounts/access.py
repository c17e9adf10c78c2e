"""The run API as one user may use it: `UserRuns`, a Runner seen through `permissions`.

Whenever an installation has accounts, the workbench and the CLI reach runs only through a
`UserRuns` for the signed-in user, so every page, command and URL parameter meets the same rules.

The rules:
- Every method that takes a run id first reads the run's record and asks `permissions`. A run the
  user may not read, and a run that does not exist, get the same one-line `RunError`
  (`no_run`): the refusal says nothing about a private run, not even that it exists.
- A run the user may read but not steer (someone else's shared run) is refused by what was asked,
  naming only what the user could already see.
- New runs (started, queued, forked, branch re-runs) belong to the user and start private.
- Nothing else of the Runner is reachable: a method not written here is an AttributeError, so a
  page or command that needs one fails in the tests, not open.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from research_core.accounts import permissions
from research_core.accounts.records import LOCAL_NAME, VISIBILITIES, User
from research_core.configuration import LLMSettings, RunConfig
from research_core.gates import GateAnswer
from research_core.llm.client import LLMClient
from research_core.runs.errors import RunError
from research_core.runs.records import RunRecord, RunResult, RunSummary
from research_core.runs.runner import Runner
from research_core.runs.snapshot import RunSnapshot
from research_core.schemas import Plan
from research_core.sources.cache import PageCache
from research_core.storage.location import StoreLocation

SHOWN_ID_CHARS = 80


def no_run(run_id: str) -> RunError:
    """The refusal of a run that does not exist or that the user may not read: one line, the same for both."""
    return RunError(f"No run {str(run_id)[:SHOWN_ID_CHARS]} you can open.")


@dataclass(frozen=True)
class RunRights:
    """What one user may do with one run they can read, for the pages to show or hide their controls."""

    owner: str
    visibility: str
    steer: bool
    delete: bool
    share: bool
    fork: bool

    @property
    def read_only(self) -> bool:
        """Whether the user only reads the run (it is someone else's shared run, or the user is a viewer)."""
        return not self.steer


def rights_of(user: User, run: RunSummary) -> RunRights:
    """The rights of `user` over a run they can read."""
    return RunRights(
        owner=run.owner or LOCAL_NAME,
        visibility=permissions.visibility_of(run),
        steer=permissions.may_steer(user, run),
        delete=permissions.may_delete(user, run),
        share=permissions.may_share(user, run),
        fork=permissions.may_fork(user, run),
    )


def fork_plan(snap: RunSnapshot) -> list[dict[str, Any]]:
    """The rows of a run's plan to copy into a fork: its branches that were not skipped, under kept parents."""
    kept: set[str] = set()
    rows = []
    for branch in snap.branches:  # plan-tree order: a parent comes before its children
        if branch.status == "skipped" or (branch.parent_id is not None and branch.parent_id not in kept):
            continue
        kept.add(branch.id)
        rows.append(
            {
                "id": branch.id,
                "question_text": branch.question_text,
                "priority": branch.priority,
                "rationale": branch.rationale,
                "parent_id": branch.parent_id,
            }
        )
    return rows


class UserRuns:
    """A Runner as `user` may use it (module rules); the workbench's and the CLI's runner when accounts exist."""

    def __init__(self, runner: Runner, user: User):
        self._runner = runner
        self.user = user
        # new runs are the user's; the local user's (no accounts) are recorded without an owner, as always
        self._owner = None if user.name == LOCAL_NAME else user.name

    # ---- what the runner is, not what it holds --------------------------------------------

    @property
    def location(self) -> StoreLocation:
        """The database of the runs."""
        return self._runner.location

    @property
    def db_path(self) -> Any:
        """The SQLite file of the runs (None on PostgreSQL)."""
        return self._runner.db_path

    @property
    def llm_settings(self) -> LLMSettings:
        """The LLM settings new runs use."""
        return self._runner.llm_settings

    @property
    def llm(self) -> LLMClient:
        """The LLM client (prices for estimates; the judge of a comparison the user may start)."""
        return self._runner.llm

    @property
    def page_cache(self) -> PageCache:
        """The page cache; an admin's alone to see and empty."""
        if not permissions.may_change_settings(self.user):
            raise RunError("Only an admin manages the page cache.")
        return self._runner.page_cache

    def use_llm_settings(self, settings: LLMSettings) -> None:
        """Switch the LLM settings this runner uses (a resumed run's own)."""
        self._runner.use_llm_settings(settings)

    # ---- checks -----------------------------------------------------------------------------

    def _readable(self, run_id: str) -> RunRecord:
        record = self._runner.store.get(run_id)
        if record is None or not permissions.may_read(self.user, record):
            raise no_run(run_id)
        return record

    def _steerable(self, run_id: str, doing: str) -> RunRecord:
        record = self._readable(run_id)
        if not permissions.may_steer(self.user, record):
            raise self._not_yours(record, doing)
        return record

    def _not_yours(self, record: RunRecord, doing: str) -> RunError:
        if not permissions.may_start(self.user):
            return RunError(f"Your role ({self.user.role}) reads runs only; it cannot {doing} one.")
        owner = record.owner or LOCAL_NAME
        return RunError(
            f"Run {record.id} is {owner}'s, shared with you read-only: you can open or fork it, not {doing} it."
        )

    def _may_start(self) -> None:
        if not permissions.may_start(self.user):
            raise RunError(f"Your role ({self.user.role}) reads runs only; it cannot start research.")

    def rights(self, run_id: str) -> RunRights:
        """What the user may do with a run they can read (`no_run` otherwise)."""
        return rights_of(self.user, self._readable(run_id))

    # ---- reading ------------------------------------------------------------------------------

    def runs(self) -> list[RunSummary]:
        """The runs the user may read (their own and those shared with the team), newest first."""
        return self._runner.runs(keep=lambda run: permissions.may_read(self.user, run))

    def snapshot(self, run_id: str) -> RunSnapshot:
        """The run's current state."""
        self._readable(run_id)
        return self._runner.snapshot(run_id)

    def result(self, run_id: str) -> RunResult | None:
        """The finished run's result (None until it finishes)."""
        self._readable(run_id)
        return self._runner.result(run_id)

    def llm_record(self, run_id: str) -> dict[str, Any] | None:
        """The LLM settings the run started with."""
        return self._readable(run_id).llm

    def events(self, run_id: str) -> list[dict[str, Any]]:
        """The run's progress events (this process)."""
        self._readable(run_id)
        return self._runner.events(run_id)

    def is_active(self, run_id: str) -> bool:
        """Whether this process drives the run (False for a run the user may not read)."""
        try:
            self._readable(run_id)
        except RunError:
            return False
        return self._runner.is_active(run_id)

    def wait(
        self, run_id: str, timeout: float | None = None, on_status: Callable[[str], None] | None = None
    ) -> RunSnapshot:
        """Block until the run's background drive (PostgreSQL: its worker's) ends."""
        self._readable(run_id)
        return self._runner.wait(run_id, timeout, on_status)

    # ---- starting -----------------------------------------------------------------------------

    def propose_plan(self, question: str, config: RunConfig) -> tuple[Plan, list[str]]:
        """Decompose a question without a run (it spends the LLM: researchers and admins)."""
        self._may_start()
        return self._runner.propose_plan(question, config)

    def create_run(self, question: str, config: RunConfig, plan: Plan | dict | None = None) -> str:
        """Record a new run of the user's, private; nothing runs yet."""
        self._may_start()
        return self._runner.create_run(question, config, plan, owner=self._owner)

    def start(
        self,
        question: str,
        config: RunConfig,
        plan: Plan | dict | None = None,
        *,
        on_created: Callable[[str], None] | None = None,
    ) -> RunSnapshot:
        """Create a run of the user's and drive it until it ends or pauses (as `Runner.start`)."""
        run_id = self.create_run(question, config, plan)
        if on_created is not None:
            on_created(run_id)
        return self._runner.resume(run_id)

    def start_background(self, question: str, config: RunConfig, plan: Plan | dict | None = None) -> str:
        """Create a run of the user's and drive it on a background thread; its id at once."""
        run_id = self.create_run(question, config, plan)
        self._runner.resume_background(run_id)
        return run_id

    def enqueue(self, question: str, config: RunConfig, plan: Plan | dict | None = None) -> str:
        """Record a run of the user's and queue it for a worker (PostgreSQL)."""
        self._may_start()
        return self._runner.enqueue(question, config, plan, owner=self._owner)

    def fork(self, run_id: str) -> str:
        """A new run of the user's with the question, settings and plan of a run they can read; not started.

        The copy stops at the plan review (whatever the original did), so the plan can be edited first.
        """
        record = self._readable(run_id)
        if not permissions.may_fork(self.user, record):
            raise RunError(f"Your role ({self.user.role}) reads runs only; it cannot fork one.")
        config = RunConfig.model_validate({**record.config, "auto_approve": False})
        rows = fork_plan(self._runner.snapshot(run_id))
        plan = {"question": record.question, "sub_questions": rows} if rows else None
        return self.create_run(record.question, config, plan)

    # ---- steering -----------------------------------------------------------------------------

    def resume(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> RunSnapshot:
        """Answer the run's gate or continue it (its owner)."""
        self._steerable(run_id, "steer")
        return self._runner.resume(run_id, answer)

    def resume_background(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> None:
        """Answer the run's gate or continue it on a background thread (its owner)."""
        self._steerable(run_id, "steer")
        self._runner.resume_background(run_id, answer)

    def enqueue_resume(self, run_id: str, answer: GateAnswer | str | dict[str, Any] | None = None) -> None:
        """Queue the user's own run for a worker to continue, answering its gate with `answer` (PostgreSQL)."""
        self._steerable(run_id, "steer")
        self._runner.enqueue_resume(run_id, answer)

    def request_stop(self, run_id: str) -> None:
        """Ask whichever process drives the user's own run to stop it at its next step."""
        self._steerable(run_id, "stop")
        self._runner.request_stop(run_id)

    def prepare_rerun(
        self, run_id: str, branch_id: str, *, question_text: str | None = None, priority: Any = None
    ) -> str:
        """Create a branch re-run of the user's own finished run."""
        self._steerable(run_id, "re-run")
        return self._runner.prepare_rerun(run_id, branch_id, question_text=question_text, priority=priority)

    def rerun_branch(
        self,
        run_id: str,
        branch_id: str,
        *,
        question_text: str | None = None,
        priority: Any = None,
        on_created: Callable[[str], None] | None = None,
    ) -> RunSnapshot:
        """Re-research one branch of the user's own finished run as a new run, and drive it."""
        self._steerable(run_id, "re-run")
        return self._runner.rerun_branch(
            run_id, branch_id, question_text=question_text, priority=priority, on_created=on_created
        )

    def delete(self, run_id: str) -> bool:
        """Delete the user's own run with its checkpoints."""
        self._steerable(run_id, "delete")
        return self._runner.delete(run_id)

    def set_visibility(self, run_id: str, visibility: str) -> None:
        """Share the user's own run with the team, or make it private again."""
        if visibility not in VISIBILITIES:
            raise RunError(f"unknown visibility {visibility!r}; use {' or '.join(VISIBILITIES)}.")
        self._steerable(run_id, "share")
        self._runner.store.update(run_id, visibility=visibility)
