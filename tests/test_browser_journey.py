"""The whole journey in a real browser: question -> edited plan -> step gates -> report -> downloads.

Debian's Chromium (installed by `bash scripts/setup.sh`) drives `streamlit run app.py` on
127.0.0.1 through Playwright's sync API. The LLM is the scripted OpenAI-compatible server in a
subprocess; search is the real document library in a tmp SQLite file. Screenshots of the run
and the report go to test-output/ and, refreshed, to docs/screenshots/.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from research_core.search.library import DocumentLibrary

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
OUTPUT = ROOT / "test-output"
SCREENSHOTS = ROOT / "docs" / "screenshots"
QUESTION = "Compare SQLite and PostgreSQL for small web apps"
EDITED_TEXT = "How do SQLite and PostgreSQL handle concurrent writes in a web app?"
EDITED_PRIORITY = "0.95"

DOCUMENTS = {
    "sqlite-notes.md": "# SQLite for web apps\n\nSQLite is an embedded database: one file, no server process. "
    "With write-ahead logging, readers keep reading while one writer commits, which suits small web apps "
    "with modest write traffic. Backups are a file copy.",
    "postgres-notes.md": "# PostgreSQL for web apps\n\nPostgreSQL is a client-server database with MVCC: many "
    "connections write concurrently without blocking readers. It adds replication, roles and extensions, "
    "at the cost of running and tuning a server.",
    "comparison.txt": "Comparing SQLite and PostgreSQL: practitioners recommend SQLite for small web apps, "
    "prototypes and single-server deployments, and PostgreSQL once concurrent writes, several app servers "
    "or strict access control matter. Migrating later is common and mostly mechanical.",
}

# The plan editor's columns, left to right, as configured on the Review page (row marker first).
ROW_MARKER_PX = 30
SMALL_PX = 75
LARGE_PX = 400
HEADER_PX = 35
ROW_PX = 35


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


def workbench_env(db: Path, llm_url: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a workbench under test: this process's, without any Arbor or OpenAI setting
    of its own, pointed at `db`, the scripted LLM at `llm_url` and the document library."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARBOR_"))}
    return {
        **inherited,
        "ARBOR_DB": str(db),
        "OPENAI_BASE_URL": llm_url,
        "OPENAI_API_KEY": "sk-test",
        "ARBOR_SEARCH": "library",
        "ARBOR_CACHE_DIR": str(tmp_path / "cache"),
    }


@contextmanager
def running_app(env: dict[str, str], tmp_path: Path, start_within: float = 60) -> Iterator[str]:
    """The workbench (`streamlit run app.py`) on a free port of 127.0.0.1 with `env`, once it answers
    its health check (the test fails with its log after `start_within` seconds); stopped on exit."""
    port = _free_port()
    log = (tmp_path / "streamlit.log").open("w")
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + start_within
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.time() > deadline:
                pytest.fail(f"streamlit did not start:\n{(tmp_path / 'streamlit.log').read_text()}")
            time.sleep(0.3)
        yield url
    finally:
        _stop(process)
        log.close()


@pytest.fixture(scope="module")
def chromium() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing; install it with `bash scripts/setup.sh` (never `playwright install`).")
    return CHROMIUM


@pytest.fixture(scope="module")
def llm_url() -> Iterator[str]:
    """The scripted LLM server, one for this module's tests (each gets its own app and database)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--port", "0", "--latency", "0.05"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    first_line: list[str] = []
    reader = threading.Thread(target=lambda: first_line.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(30)
    try:
        if not first_line or not first_line[0].startswith("http://"):
            pytest.fail(f"the scripted LLM server did not start (got {first_line!r})")
        yield first_line[0].strip()
    finally:
        _stop(process)


@pytest.fixture
def app_url(tmp_path: Path, llm_url: str) -> Iterator[str]:
    db = tmp_path / "data" / "arbor.db"
    library = DocumentLibrary(db)
    for name, text in DOCUMENTS.items():
        library.add_text(name, text, kind="md" if name.endswith(".md") else "txt")
    with running_app(workbench_env(db, llm_url, tmp_path), tmp_path) as url:
        yield url


def _grid_text(page, column: int, row: int) -> str:
    """The plan editor's cell text, read from the grid's accessibility table."""
    return page.evaluate(
        "([c, r]) => (document.querySelector(`[data-testid='glide-cell-${c}-${r}']`) || {}).textContent || ''",
        [column, row],
    )


def _edit_cell(page, x_offset: int, column: int, row: int, value: str) -> None:
    """Select a cell of the plan editor, open its editor with Enter, replace the value, commit."""
    canvas = page.locator("[data-testid='stDataFrame'] canvas").first
    for _attempt in range(4):
        canvas.scroll_into_view_if_needed()
        box = canvas.bounding_box()
        page.mouse.click(box["x"] + x_offset, box["y"] + HEADER_PX + ROW_PX * row + ROW_PX / 2)
        page.wait_for_timeout(400)
        page.keyboard.press("Enter")
        page.wait_for_timeout(500)
        page.keyboard.press("Control+a")
        page.keyboard.type(value)
        page.wait_for_timeout(300)
        page.keyboard.press("Enter")
        deadline = time.time() + 4
        while time.time() < deadline:
            text = _grid_text(page, column, row)
            if text == value or (column == 4 and text and float(text) == float(value)):
                page.wait_for_timeout(1000)  # let the app rerun with the edit before the next one
                return
            page.wait_for_timeout(100)
    raise AssertionError(f"could not edit cell ({column}, {row}); it shows {_grid_text(page, column, row)!r}")


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def test_question_to_report_in_chromium(chromium: Path, app_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    OUTPUT.mkdir(exist_ok=True)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            page = context.new_page()
            page.set_default_timeout(60_000)

            # New research: question, step mode, propose
            page.goto(app_url)
            page.get_by_role("textbox", name="Question").fill(QUESTION)
            page.get_by_text("Step by step (pause after each branch)").click()
            page.get_by_role("button", name="Propose plan").click()

            # Review: edit the second sub-question's text and priority in the grid, approve
            expect(page.get_by_role("heading", name="Review plan")).to_be_visible()
            expect(page.get_by_text("Research iterations")).to_be_visible()
            _no_exception(page)
            page.wait_for_function("() => document.querySelector(`[data-testid='glide-cell-2-1']`)?.textContent")
            assert _grid_text(page, 2, 1) == "sq_002"
            text_x = ROW_MARKER_PX + 2 * SMALL_PX + LARGE_PX // 3
            priority_x = ROW_MARKER_PX + 2 * SMALL_PX + LARGE_PX + SMALL_PX // 2
            _edit_cell(page, text_x, 3, 1, EDITED_TEXT)
            _edit_cell(page, priority_x, 4, 1, EDITED_PRIORITY)
            expect(page.get_by_text(f"sq_002 · priority {EDITED_PRIORITY}")).to_be_visible()  # the tree preview
            expect(page.locator("[data-testid='stMarkdownContainer']").get_by_text(EDITED_TEXT)).to_be_visible()
            approve = page.get_by_role("button", name="Approve and research")
            expect(approve).to_be_enabled()
            approve.click()

            # Run: the live tree, then step gates until the report is ready
            expect(page.get_by_role("heading", name="Run", exact=True)).to_be_visible()
            gates = 0
            report_link = page.get_by_role("link", name="Read the report")
            continue_button = page.get_by_role("button", name="Continue")
            while True:
                expect(continue_button.or_(report_link)).to_be_visible(timeout=90_000)
                if report_link.is_visible():
                    break
                gates += 1
                expect(page.get_by_role("heading", name="Paused after a branch")).to_be_visible()
                _no_exception(page)
                if gates == 1:
                    page.wait_for_timeout(1500)  # let the tree chart draw
                    page.screenshot(path=str(OUTPUT / "run.png"))
                continue_button.click()
                expect(page.get_by_role("heading", name="Paused after a branch")).to_be_hidden(timeout=30_000)
                assert gates < 10, "the run kept pausing"
            assert gates >= 1
            _no_exception(page)

            # Report: the answer, then the downloads
            report_link.click()
            expect(page.get_by_role("heading", name="Report", exact=True)).to_be_visible()
            expect(page.get_by_text("The research answers the question")).to_be_visible()
            page.wait_for_timeout(1000)
            _no_exception(page)
            page.screenshot(path=str(OUTPUT / "report.png"))

            with page.expect_download() as markdown_download:
                page.get_by_role("button", name="Markdown").click()
            markdown = Path(markdown_download.value.path()).read_text(encoding="utf-8")
            assert markdown_download.value.suggested_filename.endswith(".md")
            assert EDITED_TEXT in markdown
            assert QUESTION in markdown

            with page.expect_download() as json_download:
                page.get_by_role("button", name="JSON").click()
            result = json.loads(Path(json_download.value.path()).read_text(encoding="utf-8"))
            assert result["final_answer"]
            assert result["status"] == "completed"
            edited = [sq for sq in result["sub_questions"] if sq["question_text"] == EDITED_TEXT]
            assert edited and edited[0]["priority"] == float(EDITED_PRIORITY)
            assert "sk-test" not in json.dumps(result)
        finally:
            browser.close()

    for name in ("run.png", "report.png"):
        shutil.copyfile(OUTPUT / name, SCREENSHOTS / name)


def test_a_page_url_opened_first_after_a_server_start_gets_the_whole_app(chromium: Path, app_url: str) -> None:
    """Streamlit's legacy pages-folder routing must not bypass app.py (navigation, sidebar, layout)."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(f"{app_url}/history")
            expect(page.get_by_role("heading", name="History")).to_be_visible()
            expect(page.get_by_text("No runs yet.")).to_be_visible()
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar.get_by_text("Providers")).to_be_visible()
            expect(sidebar.get_by_role("link", name="New research")).to_be_visible()
            assert sidebar.get_by_role("link", name="app", exact=True).count() == 0
            _no_exception(page)
        finally:
            browser.close()


# Texts of the Run page's metric tiles that the browser cuts short (text-overflow: ellipsis shows "…").
CUT_TILE_TEXTS = """() => Array.from(document.querySelectorAll("[data-testid='stMetric'] *"))
    .filter(e => e.textContent.trim() && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.trim() + "…")"""


def test_the_run_page_tiles_show_their_values_in_full_at_1440_px(chromium: Path, app_url: str) -> None:
    """The iteration budget and the cost fit their tiles on a common laptop screen: no value ends in "…"."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.set_default_timeout(60_000)
            page.goto(app_url)
            page.get_by_role("textbox", name="Question").fill(QUESTION)
            page.get_by_role("button", name="Propose plan").click()
            expect(page.get_by_role("heading", name="Review plan")).to_be_visible()
            page.get_by_role("button", name="Approve and research").click()
            expect(page.get_by_role("heading", name="Run", exact=True)).to_be_visible()
            expect(page.get_by_role("link", name="Read the report")).to_be_visible(timeout=90_000)
            page.wait_for_timeout(1000)
            _no_exception(page)
            tiles = page.locator("[data-testid='stMetric']")
            labels = [t.strip() for t in page.locator("[data-testid='stMetricLabel']").all_inner_texts()]
            assert "Iterations" in labels and "Cost (USD)" in labels, labels
            assert tiles.count() == len(labels)
            values = [t.strip() for t in page.locator("[data-testid='stMetricValue']").all_inner_texts()]
            assert any("/" in v for v in values), values  # the iteration budget: used / allocated
            assert page.evaluate(CUT_TILE_TEXTS) == []
        finally:
            browser.close()
