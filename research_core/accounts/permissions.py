"""Who may do what: every rule of accounts and runs, once, as plain functions over typed records.

The workbench's pages, the CLI and the run API as one user sees it (`access.UserRuns`) all ask
these functions, so a rule changes here or nowhere. The rules:

- A run belongs to its `owner`, the account that started it. A run recorded without one (made
  before accounts, or with none configured) belongs to the local user: every account may read it,
  as before, and admins steer, share and delete it.
- A run is `private` (its owner alone sees it) or shared with the `team` (every account may open it
  read-only, and fork it). New runs are private; an owner shares or unshares their own.
- Reading a run (opening it, its report, its export, its progress) needs `may_read`; answering its
  gates, stopping, resuming, re-running a branch of it and deleting it need ownership and a role
  that researches. Nobody, admins included, reads another account's private run.
- Researchers and admins start runs and fork the runs they can read; viewers only read.
- Admins manage accounts, settings, the LLM endpoint and its API key.
"""

from __future__ import annotations

from research_core.accounts.records import User, Visibility
from research_core.runs.records import RunSummary

RESEARCHING_ROLES = ("admin", "researcher")


def visibility_of(run: RunSummary) -> Visibility:
    """The run's visibility: as recorded, else `team` for a run without an owner and `private` for an owned one."""
    if run.visibility in ("private", "team"):
        return run.visibility  # type: ignore[return-value]
    return "team" if run.owner is None else "private"


def owns(user: User, run: RunSummary) -> bool:
    """Whether `user` owns the run (an admin owns the runs recorded without an owner)."""
    if run.owner is None:
        return user.role == "admin"
    return run.owner == user.name


def may_start(user: User) -> bool:
    """Start research: new runs, forks, plan proposals, comparisons."""
    return user.role in RESEARCHING_ROLES


def may_read(user: User, run: RunSummary) -> bool:
    """Open the run, its report and progress, export it: its owner, or anyone when it is shared."""
    return owns(user, run) or visibility_of(run) == "team"


def may_steer(user: User, run: RunSummary) -> bool:
    """Answer its gates, stop, resume or re-run a branch of it: its owner, if they research."""
    return may_start(user) and owns(user, run)


def may_delete(user: User, run: RunSummary) -> bool:
    """Delete the run with its checkpoints: as steering."""
    return may_steer(user, run)


def may_share(user: User, run: RunSummary) -> bool:
    """Share the run with the team or make it private again: as steering."""
    return may_steer(user, run)


def may_fork(user: User, run: RunSummary) -> bool:
    """Copy the run's question and plan into a new run of one's own: whoever reads it and may start runs."""
    return may_start(user) and may_read(user, run)


def may_manage_users(user: User) -> bool:
    """Add, remove and change accounts."""
    return user.role == "admin"


def may_change_settings(user: User) -> bool:
    """See and change the settings, the LLM endpoint and its API key, empty the page cache."""
    return user.role == "admin"


def may_edit_library(user: User) -> bool:
    """Add documents to the shared library or remove them (everyone may search it)."""
    return user.role in RESEARCHING_ROLES


def read_only(user: User, run: RunSummary) -> bool:
    """Whether the user reads the run without steering it (a shared run of someone else, or a viewer's view)."""
    return may_read(user, run) and not may_steer(user, run)
