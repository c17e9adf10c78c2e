"""Which process drives a run (research_core/runs/ownership.py).

A run recorded as running whose owner is gone is shown as interrupted and can be resumed; a run
whose owner lives is refused to a second driver. These tests pin the rules that decide which.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from research_core.runs.ownership import (
    HOST,
    OWNER_TOKEN,
    DrivenRuns,
    other_live_owner,
    owner_alive,
    owner_elsewhere,
    pid_alive,
    process_start_token,
    start_token_from_stat,
)

# /proc/PID/stat of a process whose name holds spaces and parentheses; field 22 (start time) is 98765.
STAT = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 500 0 0 0 3 1 0 0 20 0 1 0 98765 1234567 890 " + " ".join(
    ["0"] * 30
)
GONE = 2**22 + 12345  # above the kernel's pid limit: no process has it


def test_the_start_time_is_read_after_the_process_name_even_when_the_name_holds_parentheses():
    assert start_token_from_stat(STAT) == "98765"


def test_a_cut_short_stat_line_gives_no_start_time():
    assert start_token_from_stat("4242 (name) S 1 2 3") is None
    assert start_token_from_stat("") is None


def test_this_process_owner_token_is_its_start_time_and_host_where_proc_exists():
    token = process_start_token(os.getpid())
    if token is not None:  # Linux
        assert f"{token}@{HOST}" == OWNER_TOKEN
    assert process_start_token(GONE) is None


def test_a_run_recorded_by_an_earlier_process_with_our_pid_is_not_ours():
    # A restarted container's server gets the pid of the process that died mid-run: that run is
    # interrupted (resumable), not "running" forever.
    assert owner_alive(os.getpid(), OWNER_TOKEN)
    assert not owner_alive(os.getpid(), "an-earlier-process")


def test_a_live_process_is_the_owner_only_with_its_own_start_time():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        token = process_start_token(child.pid)
        assert owner_alive(child.pid, token) and other_live_owner(child.pid, token)
        if token is not None:
            assert not owner_alive(child.pid, str(int(token) + 1))  # the pid was reused by another process
    finally:
        child.kill()
        child.wait()
    assert not owner_alive(child.pid, token)  # gone: its run can be resumed


def test_records_without_a_token_fall_back_to_the_pid():
    assert owner_alive(os.getpid(), None)
    assert not owner_alive(GONE, None)
    assert not owner_alive(None, None) and not owner_alive(0, "1")
    assert pid_alive(os.getpid()) and not pid_alive(GONE) and not pid_alive(None)


def test_this_process_is_never_another_live_owner():
    # deleting a run this process recorded as its own is allowed (the runner checks its own drives)
    assert not other_live_owner(os.getpid(), OWNER_TOKEN)
    assert not other_live_owner(GONE, "1")


def test_a_run_can_be_reserved_for_one_drive_at_a_time_in_a_process():
    driven = DrivenRuns()
    assert driven.add("run-1")
    assert "run-1" in driven and not driven.add("run-1")  # a second click is refused
    driven.discard("run-1")
    assert "run-1" not in driven and driven.add("run-1")
    driven.discard("never-reserved")  # no error


def test_of_many_threads_reserving_one_run_exactly_one_wins():
    driven = DrivenRuns()
    wins: list[bool] = []
    start = threading.Barrier(8)

    def reserve() -> None:
        start.wait()
        wins.append(driven.add("run-1"))

    threads = [threading.Thread(target=reserve) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1


def test_an_owner_on_another_host_counts_as_alive_and_one_here_is_looked_at():
    # A worker on another machine: its pid means nothing here, so it is not taken for dead (the
    # queue's heartbeat decides); the same pid and start time on this host is looked at as usual.
    assert owner_elsewhere("98765@another-host") and not owner_elsewhere(f"98765@{HOST}")
    assert not owner_elsewhere("98765") and not owner_elsewhere(None)
    assert owner_alive(GONE, "98765@another-host")
    assert not owner_alive(GONE, f"98765@{HOST}")
