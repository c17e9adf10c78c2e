"""What a run looks like to the UI and the CLI right now (research_core/runs/snapshot.py)."""

from __future__ import annotations

from research_core.runs.snapshot import shown_status


def test_a_running_run_whose_driver_is_gone_shows_as_interrupted():
    assert shown_status("running", active=False, owner_is_alive=False) == "interrupted"
    assert shown_status("running", active=True, owner_is_alive=False) == "running"  # driven by this process
    assert shown_status("running", active=False, owner_is_alive=True) == "running"  # by another live process
    assert shown_status("failed", active=False, owner_is_alive=False) == "failed"
