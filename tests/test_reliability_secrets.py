"""API keys stay secret: never in the SQLite file, the logs, the exports or the CLI's output.

The key goes to the LLM endpoint in the Authorization header and nowhere else; the tests
search every byte Arbor writes for it, including when the endpoint echoes it back in an error.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research_core.cli.main import main
from research_core.configuration import LLMSettings
from research_core.output.export import export_result
from research_core.runs.runner import Runner
from tests.conftest import config
from tests.fakes.llm_server import Fault, ScriptedLLM, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import REPO, run_cli

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
    original = llm_server.ScriptedHandler.do_POST

    def spy(self: BaseHTTPRequestHandler) -> None:
        seen.append(self.headers.get("Authorization", ""))
        original(self)

    llm_server.ScriptedHandler.do_POST = spy
    try:
        with serve(ScriptedLLM()) as (url, _):
            settings = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=10, max_retries=0)
            runner = Runner(tmp_path / "a.db", llm_settings=settings, api_key=KEY, backends=[FixtureSearch()])
            runner.start("What is quantum computing?", config(auto_approve=True))
    finally:
        llm_server.ScriptedHandler.do_POST = original
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


# ---- credentials written into the endpoint URL -------------------------------------------------

URL_SECRET = "sk-test-SECRET-URL-7e6d5c4b3a2f1e0d9c8b"


def open_app(run_id: str, page: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.query_params["run"] = run_id
    return at.run().switch_page(page).run()


def page_text(at: AppTest) -> str:
    parts = [
        str(e.value) for kind in ("markdown", "caption", "error", "warning", "info", "title") for e in at.get(kind)
    ]
    return "\n".join(parts)


def test_credentials_in_the_endpoint_url_never_reach_messages_the_db_or_pages(tmp_path, monkeypatch, capsys):
    db = tmp_path / "arbor.db"
    url = f"http://arbor:{URL_SECRET}@127.0.0.1:9/v1?api_key={URL_SECRET}&tenant=t1"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    argv = ["--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
    assert main(["run", "What is quantum computing?", "--auto", "-v", *argv]) == 1
    captured = capsys.readouterr()
    assert "Cannot reach the LLM at http://127.0.0.1:9/v1?tenant=t1. Check that the server" in captured.err
    run_id = captured.err.split("run id ")[1].split()[0]
    assert main(["show", run_id, "--db", str(db)]) == 0
    assert main(["runs", "--db", str(db)]) == 0
    shown = captured.out + captured.err + "\n".join(capsys.readouterr())
    assert URL_SECRET not in shown and URL_SECRET[-10:] not in shown
    assert URL_SECRET.encode() not in db_bytes(db) and URL_SECRET[-10:].encode() not in db_bytes(db)
    monkeypatch.setenv("ARBOR_DB", str(db))
    for page in ("app_pages/run.py", "app_pages/history.py"):
        at = open_app(run_id, page)
        assert not at.exception
        text = page_text(at)
        assert "127.0.0.1:9" in text and URL_SECRET not in text and URL_SECRET[-10:] not in text, page


def test_a_verbose_cli_run_never_prints_the_urls_credentials(tmp_path):
    docs = tmp_path / "doc.md"
    docs.write_text("# React\n\nReact builds user interfaces from components.\n")
    db = tmp_path / "cli.db"
    assert run_cli(["library", "add", str(docs)], db).returncode == 0
    with serve(ScriptedLLM()) as (url, _):
        with_secret = url.replace("http://", f"http://arbor:{URL_SECRET}@") + f"?api_key={URL_SECRET}"
        done = run_cli(["run", QUESTION, "--auto", "-v"], db, with_secret, "library")
    assert done.returncode == 0, done.stderr
    assert "HTTP Request: POST" in done.stderr  # the HTTP client's own log lines are there, cleaned
    assert URL_SECRET not in done.stdout + done.stderr and URL_SECRET[-10:] not in done.stdout + done.stderr


# ---- key-like strings in model output, on the pages and the terminal -------------------------

LEAKED = "sk-proj-LEAKEDbyTheModel0123456789abcdef"


def leaky_script() -> ScriptedLLM:
    from tests.fakes.llm_server import default_reply

    def branch(body: dict) -> str:
        return default_reply("synthesize_branch", body).replace("scripted answer.", f"the model quoted {LEAKED}.")

    def report(body: dict) -> str:
        # a remark that asserts no fact, which grounding leaves as written (an unsupported claim is removed)
        return default_reply("meta_synthesis", body).replace(
            "A scripted conclusion.", f"The sources do not say where to use the key {LEAKED}."
        )

    return ScriptedLLM(script={"synthesize_branch": branch, "meta_synthesis": report})


def test_key_like_model_output_is_redacted_on_the_pages_and_the_terminal(tmp_path, monkeypatch, capsys):
    db = tmp_path / "arbor.db"
    docs = tmp_path / "doc.md"
    docs.write_text("# React\n\nReact builds user interfaces from components.\n")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with serve(leaky_script()) as (url, _):
        argv = ["--db", str(db), "--llm", "openai", "--llm-base-url", url, "--search", "library"]
        assert main(["library", "add", str(docs), *argv]) == 0
        capsys.readouterr()
        assert main(["run", QUESTION, "--auto", "--mode", "hierarchical", *argv]) == 0
        captured = capsys.readouterr()
        run_id = captured.err.split("run id ")[1].split()[0]
        assert "where to use the key [redacted]." in captured.out and LEAKED not in captured.out + captured.err
        monkeypatch.setenv("ARBOR_DB", str(db))
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        for page in ("app_pages/report.py", "app_pages/run.py"):
            at = open_app(run_id, page)
            assert not at.exception
            text = page_text(at) + "\n".join(str(e.label) for e in at.expander)
            assert "\\[redacted\\]" in text or "[redacted]" in text, page
            assert LEAKED not in text and LEAKED[-12:] not in text, page


# ---- exposure: the address, the endpoint check ---------------------------------------------------


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as in /proc/net/tcp*) of sockets listening on `port`."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.split(":")
            if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                found.add(address)
    return found


@pytest.mark.slow
def test_a_plain_streamlit_run_listens_on_this_machine_only(tmp_path):
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARBOR_"))}
    env["ARBOR_DB"] = str(tmp_path / "arbor.db")
    # what a user types: no --server.address
    app = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert app.poll() is None and time.time() < deadline, "streamlit did not start"
            time.sleep(0.3)
        assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only: not 0.0.0.0, not ::
    finally:
        app.terminate()
        app.wait(timeout=30)


class _Spy:
    """A local HTTP server that records the Authorization header of each request."""

    def __init__(self, status: int = 200, location: str | None = None):
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((self.path, self.headers.get("Authorization")))
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                body = b'{"data": [{"id": "m1"}]}'
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_endpoint_check_never_forwards_the_key_to_a_redirect(tmp_path):
    from ui.services import check_llm_endpoint

    elsewhere = _Spy()
    saved = _Spy(status=302, location=elsewhere.url + "/models")
    try:
        result = check_llm_endpoint(saved.url, KEY)
    finally:
        saved.close()
        elsewhere.close()
    assert saved.seen == [("/v1/models", f"Bearer {KEY}")]
    assert elsewhere.seen == []  # the key went to the saved address only
    assert not result.ok and "redirects (HTTP 302)" in result.message and "not sent there" in result.message


def test_the_settings_page_checks_only_the_saved_endpoint(env, monkeypatch):
    spy = _Spy()
    try:
        at = (
            AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run().switch_page("app_pages/settings.py").run()
        )
        at.radio(key="set_endpoint").set_value("compatible").run()
        at.text_input(key="set_base_url").input(spy.url).run()  # typed, not saved
        at.run()
        assert not at.exception
        assert spy.seen == []
    finally:
        spy.close()


def test_with_an_auth_section_only_a_signed_in_user_reaches_the_pages(env):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.secrets["auth"] = {
        "redirect_uri": "http://localhost:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "client_id": "arbor",
        "client_secret": "secret",
        "server_metadata_url": "https://idp.example/.well-known/openid-configuration",
    }
    at.run()
    assert not at.exception
    assert [b.label for b in at.button] == ["Log in"]
    assert [t.value for t in at.title] == ["Arbor"]
