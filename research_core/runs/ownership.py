"""Which process drives a run: owner identity across processes, and the runs driven in this one.

A run being driven is recorded with its owner's pid and start token (`RunStore.claim`). The pid
alone is not enough: a restarted container's new PID 1 reuses the pid of the process that died
mid-run. The start time of the process (from `/proc/PID/stat`) tells the two apart.

Workers of a team installation run on other machines, where this machine cannot look at their
processes: a token names its host (`START@HOST`), and an owner on another host counts as alive.
Whether such an owner is really gone is the run queue's business: when a worker's heartbeat
lapses, its run is queued again with its owner cleared (`runs.worker`).
"""

from __future__ import annotations

import os
import socket
import threading
import uuid


def pid_alive(pid: int | None) -> bool:
    """Whether a process with this pid exists and may be signalled by us (None or 0: no)."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def start_token_from_stat(stat: str) -> str | None:
    """The start time (field 22) in the text of a `/proc/PID/stat` file; None if it is cut short.

    The process name, field 2, is in parentheses and may itself hold spaces and parentheses, so
    the fields are counted from the last `)`.
    """
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def process_start_token(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot, /proc/PID/stat field 22); None if unknown.

    Together with the pid this names one process: a later process that reuses the pid (a
    restarted container's PID 1) has another start time.
    """
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read()
    except OSError:
        return None
    return start_token_from_stat(stat)


HOST = socket.gethostname()
# This process's owner token: its start time (a random token where /proc is missing) and its host.
OWNER_TOKEN = f"{process_start_token(os.getpid()) or uuid.uuid4().hex}@{HOST}"


def token_host(token: str | None) -> str | None:
    """The host named by an owner token (`START@HOST`); None for tokens of an older Arbor, which name none."""
    if token is None or "@" not in token:
        return None
    return token.rsplit("@", 1)[1]


def owner_elsewhere(token: str | None) -> bool:
    """Whether the token names another host than this one (its process cannot be looked at from here)."""
    host = token_host(token)
    return host is not None and host != HOST


def owner_alive(pid: int | None, token: str | None) -> bool:
    """Whether the process recorded as a run's owner (pid and start token) still exists.

    Records without a token (written by an older Arbor) fall back to the pid alone. For this
    process's own pid the token must be this process's: an earlier process with the same pid is gone.
    An owner on another host counts as alive (see the module's docstring).
    """
    if not pid:
        return False
    if token is None:
        return pid_alive(pid)
    if owner_elsewhere(token):
        return True
    if pid == os.getpid():
        return token == OWNER_TOKEN
    if not pid_alive(pid):
        return False
    started = process_start_token(pid)
    return started is None or started == token.split("@", 1)[0]


def other_live_owner(pid: int | None, token: str | None) -> bool:
    """Whether a run's recorded owner is a live process other than this one."""
    return (pid, token) != (os.getpid(), OWNER_TOKEN) and owner_alive(pid, token)


class DrivenRuns:
    """The runs some Runner of this process is driving (the UI keeps one Runner per settings)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def add(self, run_id: str) -> bool:
        """Reserve `run_id`; False (nothing changed) when a drive in this process already holds it."""
        with self._lock:
            if run_id in self._ids:
                return False
            self._ids.add(run_id)
            return True

    def discard(self, run_id: str) -> None:
        """Release `run_id` (no error when it was not reserved)."""
        with self._lock:
            self._ids.discard(run_id)

    def __contains__(self, run_id: object) -> bool:
        with self._lock:
            return run_id in self._ids


# Runs being driven by any Runner of this process.
DRIVEN_HERE = DrivenRuns()
