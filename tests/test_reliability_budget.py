"""Budgets that hold: a supplied or edited plan stays within the plan limits, and max_iterations is a
true ceiling that the review (page and CLI) states before anything runs.
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from streamlit.testing.v1 import AppTest

from research_core.cli.main import main
from research_core.planning.budget import run_iteration_cap
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.reliability_support import REPO

pytestmark = pytest.mark.timeout(180)

QUESTION = "Compare React, Vue, and Angular for building web applications"
GRIND = ["--set", "findings_for_stop=50", "--set", "confidence_for_stop=1.0"]  # branches use all they get


def plan_rows(n: int, children_each: int = 0) -> dict:
    rows = []
    for i in range(1, n + 1):
        rows.append(
            {"id": f"sq_{i:03d}", "question_text": f"Aspect {i} of the frameworks?", "priority": 1 - i / (n + 1)}
        )
        for c in range(1, children_each + 1):
            rows.append(
                {"id": f"sq_{i:03d}.{c}", "question_text": f"Detail {c} of aspect {i}?", "parent_id": f"sq_{i:03d}"}
            )
    return {"strategy": "multi-faceted", "sub_questions": rows}


@pytest.fixture
def stub(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with serve(ScriptedLLM()) as (url, script):
        common = ["--db", str(tmp_path / "a.db"), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
        yield (lambda *args: main([*args, *common])), script, tmp_path


def no_runs(db) -> bool:
    if not db.exists():
        return True
    conn = sqlite3.connect(str(db))
    try:
        return conn.execute("select count(*) from runs").fetchone()[0] == 0
    finally:
        conn.close()


def add_documents(run, tmp) -> None:
    docs = tmp / "docs"
    docs.mkdir()
    for name in ("react", "vue", "angular"):
        (docs / f"{name}.md").write_text(f"# {name}\n\n{name.title()} is a framework for web applications.\n")
    assert run("library", "add", *(str(p) for p in sorted(docs.iterdir()))) == 0


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (plan_rows(1000), "The plan has 1,000 top-level sub-questions; the limit is 5 (max_sub_questions)."),
        (plan_rows(12), "The plan has 12 top-level sub-questions; the limit is 5 (max_sub_questions)."),
        (plan_rows(4, children_each=2), "The plan has 12 sub-questions; the limit is 8 (max_total_sub_questions)."),
    ],
)
def test_a_supplied_plan_over_the_limits_is_refused_before_anything_runs(stub, capsys, plan, message):
    run, script, tmp = stub
    (tmp / "plan.json").write_text(json.dumps(plan))
    capsys.readouterr()
    assert run("run", QUESTION, "--plan", str(tmp / "plan.json"), "--auto") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"arbor: The plan is invalid: {message}") and len(err.splitlines()) == 1, err
    assert "raise max_" in err
    assert script.calls == [] and no_runs(tmp / "a.db")  # nothing ran, no run was recorded


def test_an_edited_plan_over_the_limits_is_refused_at_the_gate(tmp_path, scripted):
    url, script = scripted
    runner = make_runner(tmp_path, url)
    snap = runner.start(QUESTION, config(mode="hierarchical"))
    assert snap.status == "awaiting_review"
    snap = runner.resume(snap.run_id, {"action": "approve", **plan_rows(7)})
    assert snap.status == "awaiting_review"  # the gate stays open
    assert snap.pending["error"] == (
        "The plan has 7 top-level sub-questions; the limit is 5 (max_sub_questions). "
        "Remove some, or raise max_sub_questions for the run."
    )
    assert script.count("plan_queries") == 0
    snap = runner.resume(snap.run_id, {"action": "approve", **plan_rows(3)})
    assert snap.status == "completed", snap.error


def test_max_iterations_is_a_true_ceiling_said_before_the_run(stub, capsys):
    run, script, tmp = stub
    add_documents(run, tmp)
    (tmp / "plan.json").write_text(json.dumps(plan_rows(10)))
    capsys.readouterr()
    code = run(
        "run", QUESTION, "--plan", str(tmp / "plan.json"), "--auto", "--mode", "hierarchical",
        "--max-iterations", "8", "--set", "max_sub_questions=10", "--set", "max_total_sub_questions=10",
        "--json", str(tmp / "r.json"), *GRIND,
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    lines = captured.err.splitlines()
    warning = next(i for i, line in enumerate(lines) if "max_iterations=8" in line)
    started = next(i for i, line in enumerate(lines) if "run id " in line)
    assert warning < started  # said before the run starts
    assert "wait unfunded" in lines[warning]
    result = json.loads((tmp / "r.json").read_text())
    research = sum(sq["iteration_count"] for sq in result["sub_questions"])
    assert research <= run_iteration_cap(8, 10, flat=False) <= 8
    skipped = [sq for sq in result["sub_questions"] if sq["status"] == "skipped"]
    assert skipped and all(sq["iteration_count"] == 0 for sq in skipped)
    assert script.count("plan_queries") <= 8


def test_the_review_gate_shows_which_branches_wait_unfunded(stub, capsys):
    run, _script, tmp = stub
    add_documents(run, tmp)
    (tmp / "plan.json").write_text(json.dumps(plan_rows(5)))
    assert (
        run("run", QUESTION, "--plan", str(tmp / "plan.json"), "--mode", "hierarchical", "--max-iterations", "8") == 0
    )
    out = capsys.readouterr().out
    # 8 iterations less 7 reserved, but at least one per branch: 5 research iterations for 5 branches
    assert "sq_001  [0.83]  Aspect 1 of the frameworks?  (2 it.)" in out
    assert "sq_003  [0.50]  Aspect 3 of the frameworks?  (1 it.)" in out
    assert "sq_005  [0.17]  Aspect 5 of the frameworks?  (unfunded)" in out
    budget = next(line for line in out.splitlines() if line.startswith("Budget: "))
    assert "leaves 5 research iterations" in budget and "sq_003 gets fewer than the minimum" in budget
    assert "sq_004, sq_005 wait unfunded" in budget


def test_the_review_page_never_promises_more_than_the_ceiling(env, monkeypatch):
    from research_core.configuration import LLMSettings
    from research_core.runs.runner import Runner

    llm = LLMSettings(provider="openai", base_url=env["url"], model="gpt-4o-mini", timeout_s=10, max_retries=0)
    runner = Runner(env["db"], llm_settings=llm, api_key="sk-test")
    cfg = config(mode="hierarchical", max_iterations=8, search_backends=["library"])
    snap = runner.start(QUESTION, cfg, plan=plan_rows(5))
    assert snap.status == "awaiting_review", snap.error
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["run"] = snap.run_id
    at = at.run().switch_page("app_pages/review_plan.py").run()
    assert not at.exception
    iterations = next(m for m in at.metric if m.label == "Research iterations")
    assert int(iterations.value) <= run_iteration_cap(8, 5, flat=False)
    warning = "\n".join(w.value for w in at.warning)
    assert "max\\_iterations=8" in warning and "wait unfunded" in warning
    tree = "\n".join(m.value for m in at.markdown)
    assert "unfunded" in tree
