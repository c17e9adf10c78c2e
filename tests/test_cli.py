"""The command line, driven like a user would: real argument parsing, scripted LLM over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from research_core.cli.main import main
from research_core.text.sanitize import strip_url_secrets_in_text
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"


@pytest.fixture
def cli(tmp_path, monkeypatch, db):
    """The CLI on the scripted server with a library of three documents, once on each engine (`db`)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    db = tmp_path / "a.db" if isinstance(db, Path) else db
    with serve(ScriptedLLM()) as (url, script):
        common = [
            "--db",
            str(db),
            "--llm",
            "openai",
            "--llm-base-url",
            url,
            "--llm-model",
            "m1",
            "--search",
            "library",
        ]

        # on PostgreSQL these tests research in this process (--here); tests/test_workers.py covers the queue
        here = [] if isinstance(db, Path) else ["--here"]

        def run(*args: str) -> int:
            return main([*args, *(here if args[0] in ("run", "resume", "rerun") else []), *common])

        docs = tmp_path / "docs"
        docs.mkdir()
        (docs / "react.md").write_text("# React\n\nReact builds user interfaces from components with JSX.\n")
        (docs / "vue.md").write_text("# Vue\n\nVue is a progressive framework with reactive templates.\n")
        (docs / "angular.txt").write_text("Angular is a TypeScript platform for enterprise web applications.\n")
        assert run("library", "add", str(docs / "react.md"), str(docs / "vue.md"), str(docs / "angular.txt")) == 0
        run.db = str(db)
        yield run, script, tmp_path


def test_decompose_edit_run_with_plan_export(cli, capsys):
    run, _, tmp = cli
    plan_path = tmp / "plan.json"
    assert run("decompose", QUESTION, "--json", str(plan_path)) == 0
    plan = json.loads(plan_path.read_text())
    assert len(plan["sub_questions"]) == 3
    plan["sub_questions"][0]["question_text"] = "How does React build user interfaces?"
    plan["sub_questions"][0]["priority"] = 0.95
    plan_path.write_text(json.dumps(plan))
    out, res = tmp / "report.md", tmp / "result.json"
    capsys.readouterr()
    code = run(
        "run",
        QUESTION,
        "--mode",
        "hierarchical",
        "--plan",
        str(plan_path),
        "--auto",
        "--out",
        str(out),
        "--json",
        str(res),
    )
    assert code == 0
    result = json.loads(res.read_text())
    assert result["sub_questions"][0]["question_text"] == "How does React build user interfaces?"
    assert result["status"] == "completed"
    assert result["synthesis"]["approach"] == "hierarchical"
    assert result["sources"] and result["sources"][0]["backend"] == "library"
    assert "How does React build user interfaces?" in out.read_text()
    assert run("runs") == 0
    listing = capsys.readouterr().out
    assert result["run_id"] in listing and "completed" in listing
    html = tmp / "r.html"
    assert run("export", result["run_id"], "--format", "html", "--out", str(html)) == 0
    assert "<html" in html.read_text().lower()
    assert run("show", result["run_id"]) == 0
    assert "How does React build user interfaces?" in capsys.readouterr().out
    assert run("delete", result["run_id"]) == 0
    capsys.readouterr()
    assert run("runs") == 0 and result["run_id"] not in capsys.readouterr().out
    assert run("show", result["run_id"]) == 2


def test_run_without_auto_stops_at_review_then_resume_approves(cli, capsys):
    run, _, tmp = cli
    capsys.readouterr()
    assert run("run", QUESTION) == 0
    captured = capsys.readouterr()
    assert "waiting for review" in captured.out
    run_id = captured.err.split("run id ")[1].split()[0]
    db = strip_url_secrets_in_text(run.db)  # what the terminal shows of a URL: no user or password
    assert "sq_001" in captured.out and f"resume {run_id} --db {db} --answer approve" in captured.out
    bad = tmp / "bad.json"
    bad.write_text(json.dumps({"sub_questions": [{"question_text": "", "priority": 0.5}]}))
    assert run("resume", run_id, "--answer", str(bad)) == 2  # refused before the run moves
    captured = capsys.readouterr()
    assert "Refused" in captured.err and "empty" in captured.err
    assert run("resume", run_id, "--answer", "approve", "--json", str(tmp / "r.json")) == 0
    assert json.loads((tmp / "r.json").read_text())["status"] == "completed"


def test_user_errors_are_one_line_without_traceback(cli, capsys):
    run, _, tmp = cli
    capsys.readouterr()
    assert run("run", "   ") == 2
    err = capsys.readouterr().err
    assert err.strip() == "arbor: The question is empty. Type a question to research."
    assert run("resume", "no-such-run") == 2
    assert "No run with id" in capsys.readouterr().err
    broken = tmp / "broken.json"
    broken.write_text("{oops")
    assert run("run", QUESTION, "--plan", str(broken)) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err and "Traceback" not in err
    assert run("export", "nope", "--out", str(tmp / "x.md")) == 2
    assert run("run", QUESTION, "--auto", "--max-iterations", "0") == 2
    assert "max_iterations" in capsys.readouterr().err


def test_llm_unreachable_is_a_clear_failure(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = main(
        [
            "run",
            "What is quantum computing?",
            "--auto",
            "--db",
            str(tmp_path / "a.db"),
            "--llm",
            "openai",
            "--llm-base-url",
            "http://127.0.0.1:9/v1",
            "--search",
            "library",
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "Cannot reach the LLM at http://127.0.0.1:9/v1" in err
    assert "resume" in err and "Traceback" not in err


def test_set_changes_any_limit_and_refuses_unknown_fields(cli, capsys):
    run, script, tmp = cli
    code = run(
        "run", QUESTION, "--mode", "hierarchical", "--auto", "--json", str(tmp / "r.json"),
        "--set", "max_depth=1", "--set", "verify_citations=false", "--set", "drill_down_on=adequate",
        "--set", "max_iterations=12", "--max-iterations", "14",
    )  # fmt: skip
    assert code == 0
    result = json.loads((tmp / "r.json").read_text())
    run_id = result["run_id"]
    from research_core.runs.store import RunStore

    stored = RunStore(run.db).get(run_id).config
    assert (stored["max_depth"], stored["verify_citations"], stored["drill_down_on"]) == (1, False, "adequate")
    assert stored["max_iterations"] == 14  # the named flag wins over --set
    assert script.count("verify_citations") == 0 and script.count("evaluate_depth") == 0
    capsys.readouterr()
    assert run("run", QUESTION, "--auto", "--set", "max_dept=3") != 0
    err = capsys.readouterr().err.strip()
    assert err.endswith("unknown field 'max_dept' (did you mean max_depth?)") and len(err.splitlines()) == 1
    assert run("run", QUESTION, "--auto", "--set", "max_depth=9") != 0
    assert "max_depth" in capsys.readouterr().err
