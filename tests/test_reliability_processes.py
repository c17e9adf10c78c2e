"""Nothing left running: a stopped CLI run leaves no model server behind, and its run is resumable.

SIGTERM and SIGHUP stop a CLI run the way Ctrl-C does; the embedded model server dies with the
process that started it however that process ends (SIGKILL included), and not before, even when it
was started from a thread that has ended since (a Streamlit script run, a background run). Also:
`runs` and History show a running run's mode as soon as the engine decided it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import (
    CLIMATE_QUESTION,
    REPO,
    checkpoint_count,
    clean_env,
    cli_args,
    index_documents,
    run_cli,
    spawn_cli,
    status_of,
    stub_process,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting to be reaped is dead)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


def children(pid: int, needle: str) -> list[int]:
    """Pids of the processes whose parent is `pid` and whose command line contains `needle`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2 :].split()[1]) == pid and needle in cmdline:
            found.append(int(entry.name))
    return found


# ---- the model server dies with its parent ---------------------------------------------------

# A process that starts a LocalModelServer (running the stub LLM instead of llama.cpp, so no model
# is needed) from a thread that ends at once, then waits to be killed.
_PARENT = """
import signal, sys, threading
from pathlib import Path

signal.signal(signal.SIGHUP, signal.SIG_DFL)  # started under nohup, a process would ignore it

from research_core.llm.local_model import LocalModelServer

class StubServer(LocalModelServer):
    def command(self, port):
        return [sys.executable, "-m", "tests.fakes.llm_server", "--port", str(port)]

model = Path(sys.argv[1])
model.write_bytes(b"not a model")
server = StubServer(model, log_path=Path(sys.argv[2]), startup_timeout_s=60)
starter = threading.Thread(target=server.start)
starter.start()
starter.join()
print(server.pid, flush=True)
threading.Event().wait()
"""


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGHUP])
def test_the_model_server_dies_with_its_parent_and_not_before(tmp_path, signum):
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT, str(tmp_path / "m.gguf"), str(tmp_path / "server.log")],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    server_pid = 0
    try:
        server_pid = int(parent.stdout.readline())
        time.sleep(1.0)
        assert alive(server_pid), "the server died with the thread that started it"
        os.kill(parent.pid, signum)
        parent.wait(timeout=30)
        wait_for(lambda: not alive(server_pid), 10, "the model server to die with its parent")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if server_pid and alive(server_pid):
            os.kill(server_pid, signal.SIGKILL)


# ---- SIGTERM and SIGHUP stop a CLI run like Ctrl-C ---------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_stop_a_cli_run_like_ctrl_c(tmp_path, signum):
    db = tmp_path / "arbor.db"
    index_documents(db, tmp_path / "docs")
    with stub_process({"*": 0.3}) as url:
        proc = spawn_cli(["run", CLIMATE_QUESTION, "--auto"], db, url, "library")
        first = proc.stderr.readline()
        run_id = first.split("run id ")[1].split()[0]
        # mid-run: some steps done (the decomposition and more), and every call takes 0.3 s, so one is in flight
        wait_for(lambda: checkpoint_count(db, run_id) >= 5, 60, "some steps to be done")
        os.kill(proc.pid, signum)
        _out, rest = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signum, rest
        name = signal.Signals(signum).name
        assert rest.strip().splitlines()[-1] == (
            f"arbor: stopped by {name}; everything gathered so far is saved; "
            f"resume with: python -m research_core resume {run_id} --db {db}"
        )
        assert "Traceback" not in rest
        assert status_of(db, run_id) == "interrupted"
    with stub_process() as url:  # the resumed run needs no slow answers
        done = run_cli(["resume", run_id], db, url)
    assert done.returncode == 0, done.stderr
    assert status_of(db, run_id) == "completed"


# ---- the decided mode, while the run is running -------------------------------------------------


def test_runs_and_history_show_the_decided_mode_while_the_run_is_running(tmp_path, monkeypatch):
    db = tmp_path / "arbor.db"
    release = threading.Event()

    def held_report(body: dict) -> str:
        release.wait(60)  # the run stays running until the test has looked
        return default_reply("meta_synthesis", body)

    with serve(ScriptedLLM(script={"meta_synthesis": held_report})) as (url, script):
        # the held report call outlasts the looking, however long a busy machine takes for it
        runner = make_runner(tmp_path, url, backends=[FixtureSearch()], timeout_s=90)
        run_id = runner.start_background(
            "Compare React, Vue, and Angular for building web applications", config(auto_approve=True)
        )
        try:
            wait_for(lambda: script.count("meta_synthesis") >= 1, 60, "the run to reach its report")
            assert runner.store.get(run_id).status == "running"
            listing = run_cli(["runs"], db)
            row = next(line for line in listing.stdout.splitlines() if line.startswith(run_id))
            assert row.split()[2] == "hierarchical", row
            monkeypatch.setenv("ARBOR_DB", str(db))
            monkeypatch.setenv("OPENAI_BASE_URL", url)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
            at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
            at = at.switch_page("app_pages/history.py").run()
            table = at.dataframe[0].value
            assert list(table.loc[table["id"] == run_id, "mode"]) == ["hierarchical"]
        finally:
            release.set()
            snap = runner.wait(run_id, 90)
    assert snap.status == "completed", snap.error


# ---- the real embedded model ------------------------------------------------------------------


@pytest.mark.real_model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_stopping_a_cli_run_on_the_embedded_model_leaves_no_server(tmp_path, signum):
    db = tmp_path / "arbor.db"
    index_documents(db, tmp_path / "docs")
    proc = subprocess.Popen(
        [*cli_args(["run", CLIMATE_QUESTION, "--auto"], db, search="library"), "--llm", "local"],
        cwd=REPO,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    server: list[int] = []
    try:
        run_id = proc.stderr.readline().split("run id ")[1].split()[0]
        server = wait_for(lambda: children(proc.pid, "llama_cpp.server"), 300, "the embedded model server")
        # the server has answered once (the classification is checkpointed) and works on the next answer
        wait_for(lambda: checkpoint_count(db, run_id) >= 3, 600, "the model's first answer", interval=1)
        time.sleep(3)
        assert all(alive(pid) for pid in server)
        os.kill(proc.pid, signum)
        # the answer under way is abandoned, not waited for (minutes on a busy machine)
        proc.wait(timeout=60)
        if signum != signal.SIGKILL:
            assert proc.returncode == 128 + signum
            assert status_of(db, run_id) == "interrupted"
        wait_for(lambda: not any(alive(pid) for pid in server), 20, "the model server to stop")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in server:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
