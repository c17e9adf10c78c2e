"""Crash safety: SIGKILL a real CLI run at several points, resume it, and lose nothing.

The run is `python -m research_core run ... --auto --here --search library` in a subprocess (in
this process on PostgreSQL too, not through the queue: tests/test_workers.py kills workers), against
the scripted LLM in another subprocess (with latency, so the run takes seconds) and a library
of four documents. The test polls the database to know where the run is, kills it, checks the
checkpoint kept everything finished before the kill, resumes with `python -m research_core
resume`, and compares the result with an uninterrupted run of the same scripted answers.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest

from research_core.db import open_checkpointer
from research_core.graph import build_graph
from research_core.runs.runner import Runner
from research_core.schemas import CostEntry
from tests.reliability_support import (
    CLIMATE_QUESTION,
    index_documents,
    kill_hard,
    run_cli,
    spawn_cli,
    stub_process,
    wait_for,
)

pytestmark = pytest.mark.slow


def _entry_key(entry: CostEntry | dict) -> str:
    e = entry if isinstance(entry, CostEntry) else CostEntry.model_validate(entry)
    return json.dumps(e.model_dump(mode="json"), sort_keys=True)


def _next_nodes(db: Path | str, run_id: str) -> tuple[str, ...]:
    with open_checkpointer(db) as saver:
        return tuple(build_graph(saver).get_state({"configurable": {"thread_id": run_id}}).next)


def _summary(result: dict) -> dict:
    """What must match an uninterrupted run: the tree, the findings per branch, the sources."""
    return {
        "sub_questions": [sq["question_text"] for sq in result["sub_questions"]],
        "findings": {sq["id"]: sorted(f["text"] for f in sq["findings"]) for sq in result["sub_questions"]},
        "sources": sorted(Path(s["url"]).name for s in result["sources"]),  # the library keeps file paths
        "calls_per_task": dict(Counter(e["task"] for e in result["costs"]["entries"])),
    }


def uninterrupted_run(tmp: Path, db: Path | str) -> dict:
    """The same question run without interruption (same scripted answers, same library) in `db`."""
    index_documents(db, tmp / "docs")
    with stub_process() as url:
        done = run_cli(["run", CLIMATE_QUESTION, "--auto", "--here", "--json", str(tmp / "r.json")], db, url, "library")
    assert done.returncode == 0, done.stderr
    result = json.loads((tmp / "r.json").read_text())
    assert result["status"] == "completed" and result["mode"] == "hierarchical"
    assert all(sq["findings"] for sq in result["sub_questions"])
    return result


@pytest.fixture(scope="module")
def baselines() -> dict[str, dict]:
    """Each engine's uninterrupted run, made by the first test that needs it (each engine ranks the
    library's passages its own way, so each run is compared with its own engine's)."""
    return {}


@pytest.fixture
def baseline(baselines, db, request, tmp_path_factory) -> dict:
    """The uninterrupted run on this test's engine."""
    engine = "sqlite" if isinstance(db, Path) else "postgres"
    if engine not in baselines:
        tmp = tmp_path_factory.mktemp("baseline")
        cluster = request.getfixturevalue("postgres_cluster") if engine == "postgres" else None
        baselines[engine] = uninterrupted_run(tmp, cluster.create_database() if cluster else tmp / "arbor.db")
    return baselines[engine]


# where to kill: stub latency per task, and how to recognise the moment from the database
KILL_POINTS = {
    "decomposition": {"*": 0.05, "decompose": 6.0},
    "mid_branch": {"*": 0.4},
    "meta_synthesis": {"*": 0.05, "meta_synthesis": 6.0},
}


def _reached(point: str, runner: Runner, db: Path | str, run_id: str) -> bool:
    if point == "decomposition":
        return _next_nodes(db, run_id) == ("decompose_question",)
    if point == "mid_branch":
        snap = runner.snapshot(run_id)
        return bool(snap.findings) and any(b.status != "completed" for b in snap.branches)
    return _next_nodes(db, run_id) == ("meta_synthesize",)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_then_resume_loses_nothing_and_matches_an_uninterrupted_run(tmp_path, baseline, point, db):
    index_documents(db, tmp_path / "docs")
    runner = Runner(db)  # creates the runs table before the CLI does, so both never race on it
    with stub_process(KILL_POINTS[point]) as slow_url:
        proc = spawn_cli(["run", CLIMATE_QUESTION, "--auto", "--here"], db, slow_url, "library")
        try:
            run_id = wait_for(lambda: [r.id for r in runner.runs()], 60, "the run record")[0]
            wait_for(lambda: _reached(point, runner, db, run_id), 90, f"the run to reach {point}")
            time.sleep(0.3)  # the node's LLM call is now in flight
            before = runner.snapshot(run_id)
            assert proc.poll() is None, "the run finished before it could be killed"
            kill_hard(proc)
        finally:
            if proc.poll() is None:
                kill_hard(proc)

    killed = runner.snapshot(run_id)
    assert killed.status == "interrupted"
    assert killed.final_answer is None
    if point == "decomposition":
        assert not killed.branches and not killed.findings
        # "causes, effects, and solutions": the wording decides the mode, no call before decomposition
        assert [e.task for e in killed.costs.entries] == []
    if point == "mid_branch":
        assert killed.findings, "no finding was checkpointed before the kill"
        assert any(b.status != "completed" for b in killed.branches)
    if point == "meta_synthesis":
        assert all(b.status == "completed" for b in killed.branches)
        assert "meta_synthesis" not in {e.task for e in killed.costs.entries}
    # everything finished before the kill is in the checkpoint
    assert {f.id for f in before.findings} <= {f.id for f in killed.findings}
    assert {_entry_key(e) for e in before.costs.entries} <= {_entry_key(e) for e in killed.costs.entries}

    with stub_process() as url:
        done = run_cli(["resume", run_id, "--here", "--json", str(tmp_path / "r.json")], db, url)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["status"] == "completed"
    assert runner.snapshot(run_id).status == "completed"

    final_findings = {f["id"]: f["text"] for sq in result["sub_questions"] for f in sq["findings"]}
    for f in killed.findings:
        assert final_findings.get(f.id) == f.text, f"finding {f.id} was lost or changed"
    final_entries = Counter(_entry_key(e) for e in result["costs"]["entries"])
    for e in killed.costs.entries:
        assert final_entries[_entry_key(e)] == 1, f"cost entry lost or duplicated: {e}"
    assert max(final_entries.values()) == 1, "a cost entry appears twice"

    assert _summary(result) == _summary(baseline)
