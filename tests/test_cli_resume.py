"""Continuing a run from the command line: its own LLM and database, the run id from the start, Ctrl-C.

Real argument parsing, the scripted OpenAI-compatible server over HTTP and the local library.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from research_core.cli.main import main
from research_core.runs.runner import Runner
from tests.fakes.llm_server import Fault, ScriptedLLM, default_reply, serve

QUESTION = "Compare React, Vue, and Angular for building web applications"
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def cli_env(tmp_path, monkeypatch):
    """No key or endpoint in the environment; a local model would fail at once (empty cache)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ARBOR_LLM_MODEL", raising=False)
    monkeypatch.delenv("ARBOR_DB", raising=False)
    monkeypatch.setenv("ARBOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "runs" / "mine.db"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "react.md").write_text("# React\n\nReact builds user interfaces from components with JSX.\n")
    (docs / "vue.md").write_text("# Vue\n\nVue is a progressive framework with reactive templates.\n")
    (docs / "angular.txt").write_text("Angular is a TypeScript platform for enterprise web applications.\n")
    assert (
        main(
            ["library", "add", str(docs / "react.md"), str(docs / "vue.md"), str(docs / "angular.txt"), "--db", str(db)]
        )
        == 0
    )
    return db


def run_id_from(err: str) -> str:
    return err.split("run id ")[1].split()[0]


def models_used(script: ScriptedLLM, since: int) -> set[str]:
    return {body["model"] for _, body in script.calls[since:]}


def test_resume_and_rerun_use_the_runs_own_llm_and_database(cli_env, tmp_path, capsys, monkeypatch):
    db = cli_env
    monkeypatch.setenv("OPENAI_API_KEY", "sk-never-stored-4242")
    with serve(ScriptedLLM()) as (url, script):
        secret_url = url.replace("http://", "http://alice:hunter2@")  # credentials in the URL are not stored
        code = main(
            [
                *("run", QUESTION, "--db", str(db), "--llm", "openai", "--llm-base-url", secret_url),
                *("--llm-model", "m1", "--synthesis-model", "m1-big", "--search", "library"),
            ]
        )
        assert code == 0
        captured = capsys.readouterr()
        run_id = run_id_from(captured.err)
        assert f"python -m research_core resume {run_id} --db {db} --answer approve" in captured.out

        # No --llm* flags: the run goes on with its own endpoint and models, not the default local model.
        before = len(script.calls)
        result_path = tmp_path / "r.json"
        code = main(["resume", run_id, "--db", str(db), "--answer", "approve", "--json", str(result_path)])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert "LLM: openai, m1 at http://127.0.0.1" in captured.err
        assert models_used(script, before) == {"m1", "m1-big"}
        result = json.loads(result_path.read_text())
        assert result["status"] == "completed"

        # A branch re-run is a new run on the same LLM.
        before = len(script.calls)
        assert main(["rerun", run_id, "sq_001", "--db", str(db)]) == 0
        captured = capsys.readouterr()
        assert f"(re-run of sq_001 from {run_id})" in captured.err
        assert models_used(script, before) == {"m1", "m1-big"}

    stored = Runner(db).store.get(run_id).llm
    assert stored["provider"] == "openai" and stored["model"] == "m1" and stored["synthesis_model"] == "m1-big"
    assert stored["base_url"] == url
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    assert b"sk-never-stored-4242" not in raw and b"hunter2" not in raw


def test_explicit_llm_flags_win_over_the_runs_settings(cli_env, tmp_path, capsys):
    db = cli_env
    with serve(ScriptedLLM()) as (url, script), serve(ScriptedLLM()) as (other_url, other):
        assert (
            main(
                [
                    "run",
                    QUESTION,
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
                    "--step",
                ]
            )
            == 0
        )
        run_id = run_id_from(capsys.readouterr().err)

        before = len(script.calls)
        assert main(["resume", run_id, "--db", str(db), "--answer", "approve", "--llm-model", "m2"]) == 0
        assert "paused after a branch" in capsys.readouterr().out
        assert models_used(script, before) == {"m2"}  # same endpoint, the model named on the command line

        before = len(script.calls)
        assert (
            main(
                ["resume", run_id, "--db", str(db), "--answer", "stop", "--llm", "openai", "--llm-base-url", other_url]
            )
            == 0
        )
        assert len(script.calls) == before and other.calls  # another endpoint: only it is asked
        assert models_used(other, 0) == {"gpt-4o-mini"}  # a new endpoint starts from the defaults


def test_resume_says_which_limits_it_keeps(cli_env, capsys):
    db = cli_env
    with serve(ScriptedLLM()) as (url, _):
        assert (
            main(["run", QUESTION, "--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"])
            == 0
        )
        run_id = run_id_from(capsys.readouterr().err)
        assert main(["resume", run_id, "--db", str(db), "--max-cost", "5", "--answer", "cancel"]) == 0
    err = capsys.readouterr().err
    assert "--max-cost applies only when a run starts" in err


def test_the_run_id_is_printed_before_the_run_fails(cli_env, capsys):
    db = cli_env
    code = main(
        [
            "run",
            "What is quantum computing?",
            "--auto",
            "--db",
            str(db),
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
    run_id = run_id_from(err)
    started = err.index(f"run id {run_id} started; resume with: python -m research_core resume {run_id} --db {db}")
    assert started < err.index("Cannot reach the LLM")
    assert f"retry with: python -m research_core resume {run_id} --db {db}" in err


def test_ctrl_c_names_the_run_and_leaves_it_resumable(cli_env, tmp_path, capsys, monkeypatch):
    db = cli_env

    def ctrl_c(self, run_id, config, llm):
        raise KeyboardInterrupt

    with serve(ScriptedLLM()) as (url, _):
        common = ["--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
        with monkeypatch.context() as patch:
            patch.setattr(Runner, "_services", ctrl_c)
            code = main(["run", QUESTION, "--auto", *common])
        err = capsys.readouterr().err
        assert code == 130
        run_id = run_id_from(err)
        assert (
            f"interrupted; everything gathered so far is saved; resume with: python -m research_core resume "
            f"{run_id} --db {db}" in err
        )
        assert "RUN_ID" not in err

        assert main(["runs", "--db", str(db)]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(run_id))
        assert "interrupted" in row

        assert main(["resume", run_id, "--db", str(db), "--json", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "completed"


def test_sigint_on_a_real_cli_process_prints_the_run_id(cli_env, tmp_path):
    db = cli_env
    asked = threading.Event()

    def decompose(body: dict) -> str:
        asked.set()  # the run is being driven; the answer comes 30 s later
        return default_reply("decompose", body)

    script = ScriptedLLM(script={"decompose": decompose}, latency_by_task={"decompose": 30})
    with serve(script) as (url, _):
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "research_core",
                "run",
                QUESTION,
                "--auto",
                "--db",
                str(db),
                "--llm",
                "openai",
                "--llm-base-url",
                url,
                "--search",
                "library",
            ],
            cwd=tmp_path,
            env=environment,
            stderr=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        first = process.stderr.readline()  # blocks until the run exists
        assert "run id " in first
        run_id = run_id_from(first)
        assert asked.wait(60)
        process.send_signal(signal.SIGINT)
        _out, rest = process.communicate(timeout=90)
    assert process.returncode == 130
    assert f"resume with: python -m research_core resume {run_id} --db {db}" in rest
    assert "Traceback" not in rest
    conn = sqlite3.connect(db)
    try:
        status = conn.execute("select status from runs where id = ?", [run_id]).fetchone()[0]
    finally:
        conn.close()
    assert status == "interrupted"


def test_runs_shows_what_unfinished_runs_cost(cli_env, capsys):
    db = cli_env
    with serve(ScriptedLLM(script={"plan_queries": Fault(status=400)})) as (url, _):
        common = [
            "--db",
            str(db),
            "--llm",
            "openai",
            "--llm-base-url",
            url,
            "--llm-model",
            "gpt-4o-mini",
            "--search",
            "library",
        ]
        assert main(["run", QUESTION, *common]) == 0  # waits at the plan review
        waiting = run_id_from(capsys.readouterr().err)
        assert main(["run", QUESTION, "--auto", *common]) == 1  # query planning fails for good
        failed = run_id_from(capsys.readouterr().err)
    assert main(["runs", "--db", str(db)]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for run_id, status in ((waiting, "awaiting_review"), (failed, "failed")):
        assert status in rows[run_id]
        cost = next(word for word in rows[run_id].split() if word.startswith("$"))
        assert float(cost[1:]) > 0  # classification and decomposition were paid for
