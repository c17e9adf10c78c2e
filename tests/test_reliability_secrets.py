"""API keys stay secret: never in the SQLite file, the logs, the exports or the CLI's output.

The key goes to the LLM endpoint in the Authorization header and nowhere else; the tests
search every byte Arbor writes for it, including when the endpoint echoes it back in an error.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from research_core.__main__ import main
from research_core.configuration import LLMSettings
from research_core.export import export_result
from research_core.runner import Runner
from tests.conftest import config
from tests.fakes.llm_server import Fault, ScriptedLLM, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import run_cli

pytestmark = pytest.mark.timeout(120)

KEY = "sk-test-SECRET-4f9c2a7e1b8d3c6a5e0f9b2d"
ENV_KEY = "sk-test-SECRET-ENV-9d8c7b6a5f4e3d2c1b0a"
QUESTION = "Compare React, Vue, and Angular for building web applications"


def db_bytes(db: Path) -> bytes:
    """The database and its WAL and shared-memory files, as written on disk."""
    return b"".join(p.read_bytes() for p in sorted(db.parent.glob(db.name + "*")))


def assert_no_key(blob: bytes | str, where: str) -> None:
    data = blob.encode() if isinstance(blob, str) else blob
    for key in (KEY, ENV_KEY):
        assert key.encode() not in data, f"the API key leaked into {where}"
        assert key[-12:].encode() not in data, f"part of the API key leaked into {where}"


@pytest.fixture
def env_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_a_full_run_keeps_the_key_out_of_the_db_logs_and_exports(tmp_path, env_key, caplog):
    caplog.set_level(logging.DEBUG)  # every logger, third-party HTTP clients included
    bodies: list[str] = []
    with serve(ScriptedLLM()) as (url, script):
        settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
        runner = Runner(tmp_path / "arbor.db", llm_settings=settings, api_key=KEY, backends=[FixtureSearch()])
        snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
        assert snap.status == "completed", snap.error
        bodies += [json.dumps(body) for _, body in script.calls]
    assert_no_key("\n".join(bodies), "a request body (prompt)")
    assert_no_key(db_bytes(tmp_path / "arbor.db"), "the SQLite file")
    assert_no_key("\n".join(r.getMessage() for r in caplog.records), "the logs")
    assert_no_key(caplog.text, "the formatted logs")
    result = runner.result(snap.run_id)
    for fmt in ("md", "html", "json", "jsonl"):
        assert_no_key(export_result(result, fmt)[0], f"the {fmt} export")
    assert_no_key(json.dumps(runner.snapshot(snap.run_id).__dict__, default=str), "the snapshot")


def test_the_key_is_sent_only_as_the_authorization_header(tmp_path):
    from http.server import BaseHTTPRequestHandler

    from tests.fakes import llm_server

    seen: list[str] = []
    original = llm_server._Handler.do_POST

    def spy(self: BaseHTTPRequestHandler) -> None:
        seen.append(self.headers.get("Authorization", ""))
        original(self)

    llm_server._Handler.do_POST = spy
    try:
        with serve(ScriptedLLM()) as (url, _):
            settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
            runner = Runner(tmp_path / "a.db", llm_settings=settings, api_key=KEY, backends=[FixtureSearch()])
            runner.start("What is quantum computing?", config(auto_approve=True))
    finally:
        llm_server._Handler.do_POST = original
    assert seen and all(h == f"Bearer {KEY}" for h in seen)


def test_an_endpoint_echoing_the_key_in_its_error_does_not_leak_it(tmp_path, env_key, caplog):
    caplog.set_level(logging.DEBUG)
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}})
    # the run's first call fails: classify, or decompose when the wording alone decides the mode
    faults = {task: Fault(status=status, body=echo) for task, status in [("classify", 401), ("decompose", 401)]}
    with serve(ScriptedLLM(script=faults)) as (url, _):
        settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
        runner = Runner(tmp_path / "arbor.db", llm_settings=settings, api_key=KEY, backends=[FixtureSearch()])
        snap = runner.start(QUESTION, config(auto_approve=True))
    assert snap.status == "failed"
    assert "rejected the API key" in snap.error
    assert_no_key(snap.error, "the run's error message")
    assert_no_key(db_bytes(tmp_path / "arbor.db"), "the SQLite file")
    assert_no_key(caplog.text, "the logs")


@pytest.mark.parametrize("status", [400, 403, 500])
def test_other_error_bodies_echoing_the_key_do_not_leak_it(tmp_path, status, caplog):
    caplog.set_level(logging.DEBUG)
    echo = json.dumps({"error": {"message": f"bad request for key {KEY}"}})
    fault = Fault(status=status, body=echo)
    with serve(ScriptedLLM(script={"classify": fault, "decompose": fault})) as (url, _):
        settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
        runner = Runner(tmp_path / "arbor.db", llm_settings=settings, api_key=KEY, backends=[FixtureSearch()])
        snap = runner.start(QUESTION, config(auto_approve=True))
    assert snap.status == "failed"
    assert_no_key(snap.error, "the run's error message")
    assert_no_key(caplog.text, "the logs")
    assert_no_key(db_bytes(tmp_path / "arbor.db"), "the SQLite file")


@pytest.mark.slow
def test_the_cli_never_prints_the_key(tmp_path):
    db = tmp_path / "cli.db"
    docs = tmp_path / "doc.md"
    docs.write_text("# React\n\nReact builds user interfaces from components.\n")
    with serve(ScriptedLLM()) as (url, _):
        outputs = []
        done = run_cli(["library", "add", str(docs)], db, OPENAI_API_KEY=KEY)
        outputs.append(done.stdout + done.stderr)
        done = run_cli(["run", QUESTION, "--auto", "-v"], db, url, "library", OPENAI_API_KEY=KEY)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout + done.stderr)
        run_id = done.stderr.split("run id ")[1].split()[0]
        for command in (
            ["runs"],
            ["show", run_id],
            ["export", run_id, "--format", "json", "--out", str(tmp_path / "r.json")],
        ):
            done = run_cli(command, db, url, OPENAI_API_KEY=KEY)
            assert done.returncode == 0, done.stderr
            outputs.append(done.stdout + done.stderr)
    with serve(
        ScriptedLLM(script={"decompose": Fault(status=401, body=f'{{"error": {{"message": "bad key {KEY}"}}}}')})
    ) as (
        url,
        _,
    ):
        done = run_cli(["run", QUESTION, "--auto", "-v"], db, url, "library", OPENAI_API_KEY=KEY)
        assert done.returncode == 1
        outputs.append(done.stdout + done.stderr)
    assert_no_key("\n".join(outputs), "the CLI output")
    assert_no_key((tmp_path / "r.json").read_text(), "the CLI's JSON export")
    assert_no_key(db_bytes(db), "the SQLite file")


def test_a_key_pasted_into_the_question_is_redacted_from_exports(runner):
    snap = runner.start(f"What is quantum computing? my key is {KEY}", config(auto_approve=True))
    result = runner.result(snap.run_id)
    for fmt in ("md", "html", "json", "jsonl"):
        assert KEY not in export_result(result, fmt)[0], fmt


def test_main_accepts_no_key_argument():
    with pytest.raises(SystemExit):
        main(["run", QUESTION, "--api-key", KEY])
