"""UI responsiveness: from clicking Approve to the first live update, and the update interval.

Real Chromium (/usr/bin/chromium through Playwright) drives `streamlit run app.py` on
127.0.0.1, with the scripted LLM in a subprocess (fixed latency per call, so a run lasts long
enough to watch) and the document library as the search backend.

Measured, on the client side (Python polls the page's main area every 50 ms):
* approve -> run page: clicking "Approve and research" until the Run page's heading shows;
* approve -> first live update: until the live view ("working" badge) shows engine progress
  (the activity line names a branch or an iteration);
* update interval: the time between successive visible changes of the run panel while the run
  works (the page polls the runner every POLL_SECONDS = 1 s and redraws what changed);
* run finished -> report link: the run's end (the runs table's updated_at) until "Read the
  report" shows.

Run: .venv/bin/python -m bench.ui_responsiveness [--llm-latency 0.5]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.harness import machine
from research_core.search.library import DocumentLibrary

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
QUESTION = "Compare SQLite and PostgreSQL for small web apps"
DOCS = {
    "sqlite.md": "# SQLite\n\nSQLite is an embedded database in one file; with WAL, readers never block the writer.",
    "postgres.md": "# PostgreSQL\n\nPostgreSQL is a client-server database with MVCC and many concurrent writers.",
    "compare.txt": "Practitioners recommend SQLite for small web apps and PostgreSQL for concurrent writes.",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_health(url: str, process: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None:
            raise RuntimeError("streamlit exited")
        time.sleep(0.3)
    raise RuntimeError("streamlit did not start")


def _finished_at(db: Path) -> float | None:
    conn = sqlite3.connect(str(db))
    try:
        row = conn.execute(
            "select updated_at from runs where status in ('completed', 'completed_with_fallback') "
            "order by updated_at desc limit 1"
        ).fetchone()
    finally:
        conn.close()
    return datetime.fromisoformat(row[0]).timestamp() if row else None


def measure(llm_latency: float) -> dict[str, Any]:
    """One journey: propose, approve, watch the run, reach the report link."""
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        db = tmp / "data" / "arbor.db"
        library = DocumentLibrary(db)
        for name, text in DOCS.items():
            library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")
        stub = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.llm_server", "--port", "0", "--latency", str(llm_latency)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        llm_url = (stub.stdout.readline() if stub.stdout else "").strip()
        port = _free_port()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARBOR_"))},
            "ARBOR_DB": str(db),
            "OPENAI_BASE_URL": llm_url,
            "OPENAI_API_KEY": "sk-bench",
            "ARBOR_SEARCH": "library",
            "ARBOR_CACHE_DIR": str(tmp / "cache"),
        }
        log = (tmp / "streamlit.log").open("w")
        app = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
             "--server.address", "127.0.0.1", "--server.headless", "true"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_health(url, app)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                try:
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    page.set_default_timeout(90_000)
                    page.goto(url)
                    page.get_by_role("textbox", name="Question").fill(QUESTION)
                    page.get_by_role("button", name="Propose plan").click()
                    expect(page.get_by_role("heading", name="Review plan")).to_be_visible()
                    approve = page.get_by_role("button", name="Approve and research")
                    expect(approve).to_be_enabled()
                    main = page.locator("[data-testid='stMain']")
                    t0 = time.monotonic()
                    approve.click()
                    expect(page.get_by_role("heading", name="Run", exact=True)).to_be_visible()
                    t_run_page = time.monotonic()
                    changes: list[float] = []
                    last = None
                    t_live = None
                    report = page.get_by_role("link", name="Read the report")
                    deadline = time.monotonic() + 300
                    while time.monotonic() < deadline:
                        text = main.inner_text()
                        now = time.monotonic()
                        if text != last:
                            changes.append(now)
                            last = text
                        if t_live is None and "working" in text and ("sq_" in text or "iteration" in text.lower()):
                            t_live = now
                        if report.is_visible():
                            break
                        page.wait_for_timeout(50)
                    t_report = time.monotonic()
                    wall_report = time.time()
                finally:
                    browser.close()
        finally:
            _stop(app)
            _stop(stub)
            log.close()
        finished = _finished_at(db)
    watching = [c for c in changes if t_live is not None and c >= t_live]
    intervals = [b - a for a, b in itertools.pairwise(watching)][:-1]  # the last one is the end
    return {
        "approve_to_run_page_s": t_run_page - t0,
        "approve_to_first_live_update_s": (t_live - t0) if t_live is not None else None,
        "visible_updates": len(watching),
        "update_interval_median_s": statistics.median(intervals) if intervals else None,
        "update_interval_p90_s": statistics.quantiles(intervals, n=10)[-1] if len(intervals) >= 10 else None,
        "update_interval_max_s": max(intervals) if intervals else None,
        "run_watched_s": t_report - t0,
        "finished_to_report_link_s": (wall_report - finished) if finished else None,
    }


def main() -> None:
    """Measure twice and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-latency", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    print(f"# ui_responsiveness  {time.strftime('%Y-%m-%d %H:%M')}  {machine()}")
    print(f"# scripted LLM {args.llm_latency}s per call, library search, Chromium {CHROMIUM}")
    rows = []
    for _ in range(args.repeats):
        row = measure(args.llm_latency)
        rows.append(row)
        print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in row.items()}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
