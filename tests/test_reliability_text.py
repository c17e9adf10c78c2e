"""Clean text: nothing the model or the web writes can drive the terminal, hide its direction, or
smuggle control characters into a plan; every option error is one line naming the option and range.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from research_core.output.export import export_result
from research_core.search.library import DocumentLibrary
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, default_reply, serve
from tests.fakes.search import FixtureSearch
from tests.reliability_support import run_cli

pytestmark = pytest.mark.timeout(180)

QUESTION = "Compare React, Vue, and Angular for building web applications"
# Window title (OSC 0), hyperlink (OSC 8), colour (SGR), clear screen, a C1 CSI, BEL, a carriage return
ESCAPES = "\x1b]0;owned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m\x1b[2J\x9b1m\x07\rX"
BIDI = "\u202e\u2066\u202a\u2069\u202c"
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\x9d", "\x00", "\r", *BIDI)


def assert_clean(text: str, where: str) -> None:
    found = sorted({repr(ch) for ch in FORBIDDEN if ch in text})
    assert not found, f"{where} carries {found}"


def strings(value: object) -> list[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*strings(k), *strings(v))]
    if isinstance(value, list):
        return [t for v in value for t in strings(v)]
    return []


def escaping_script() -> ScriptedLLM:
    def decompose(body: dict) -> str:
        plan = json.loads(default_reply("decompose", body))
        plan["sub_questions"][0]["question"] = f"How do they render {ESCAPES}{BIDI}?"
        return json.dumps(plan)

    def report(body: dict) -> str:
        # a remark that asserts no fact, so grounding keeps it in the report
        remark = f"See {ESCAPES} and {BIDI}here; the sources do not say more."
        return default_reply("meta_synthesis", body).replace("A scripted conclusion.", remark)

    return ScriptedLLM(script={"decompose": decompose, "meta_synthesis": report})


def test_the_cli_prints_no_escape_sequences_or_control_characters(tmp_path):
    db = tmp_path / "arbor.db"
    doc = tmp_path / "notes.md"
    doc.write_text(f"# Notes {BIDI}on React\n\nReact builds user interfaces from components.\n")
    assert run_cli(["library", "add", str(doc)], db).returncode == 0
    outputs = []
    with serve(escaping_script()) as (url, _):
        done = run_cli(["run", QUESTION, "--auto", "--mode", "hierarchical", "-v"], db, url, "library")
        assert done.returncode == 0, done.stderr
        outputs.append(("run", done.stdout + done.stderr))
        assert "See link red" in done.stdout  # the text is kept, only the escapes go
        run_id = done.stderr.split("run id ")[1].split()[0]
        done = run_cli(["run", QUESTION, "--mode", "hierarchical"], db, url, "library")  # stops at the review
        outputs.append(("the review gate", done.stdout + done.stderr))
        for command in (["show", run_id], ["runs"], ["library", "list"], ["library", "search", "React"]):
            done = run_cli(command, db)
            assert done.returncode == 0, done.stderr
            outputs.append((" ".join(command), done.stdout + done.stderr))
    for where, text in outputs:
        assert_clean(text, where)


def test_bidi_controls_are_removed_from_titles_library_and_exports(tmp_path, scripted):
    url, _ = scripted
    db = tmp_path / "arbor.db"
    library = DocumentLibrary(db)
    library.add_text("invoice.md", f"# Invoice {BIDI}fdp.exe\n\nThe invoice is due in March.\n", kind="md")
    assert_clean(" ".join(d.title for d in library.list_documents()), "the library's titles")
    corpus = [
        {
            "url": "https://example.com/react",
            "title": f"React {BIDI}guide",
            "snippet": f"React uses JSX {BIDI}to build web applications.",
        },
        {"url": "https://example.com/vue", "title": "Vue guide\x00\x07", "snippet": "Vue has reactive templates."},
    ]
    runner = make_runner(tmp_path, url, backends=[FixtureSearch(corpus=corpus)])
    snap = runner.start(QUESTION, config(auto_approve=True, mode="hierarchical"))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert_clean(json.dumps([s.model_dump() for s in result.sources], ensure_ascii=False), "the sources")
    for fmt in ("md", "html"):
        assert_clean(export_result(result, fmt)[0], f"the {fmt} export")
    # JSON escapes control characters: look at the strings it holds
    assert_clean("\n".join(strings(json.loads(export_result(result, "json")[0]))), "the json export")
    lines = [json.loads(line) for line in export_result(result, "jsonl")[0].splitlines() if line.strip()]
    assert_clean("\n".join(strings(lines)), "the jsonl export")
    assert "React guide" in export_result(result, "md")[0]


def test_an_edited_plan_is_stored_without_nul_bel_or_bidi(tmp_path, scripted):
    url, _ = scripted
    runner = make_runner(tmp_path, url)
    snap = runner.start(QUESTION, config(mode="hierarchical", step_mode=True, parallel=1))
    assert snap.status == "awaiting_review"
    edited = {
        "action": "approve",
        "sub_questions": [
            {"id": "sq_001", "question_text": f"How does React\x00 render?\x07{BIDI}", "priority": 0.9},
            {"id": "sq_002", "question_text": "How does Vue render?", "priority": 0.8, "rationale": "Core\x00\x07"},
        ],
    }
    snap = runner.resume(snap.run_id, edited)
    assert snap.status == "awaiting_step", snap.error
    texts = {b.id: (b.question_text, b.rationale) for b in snap.branches}
    assert texts["sq_001"][0] == "How does React render?" and texts["sq_002"][1] == "Core"
    # an edit at the step gate is cleaned the same way
    snap = runner.resume(
        snap.run_id, {"action": "continue", "edits": [{"id": "sq_002", "question_text": "Vue\x07?\x00"}]}
    )
    assert next(b for b in snap.branches if b.id == "sq_002").question_text == "Vue?"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "q", "--llm-timeout", "0"], "--llm-timeout: timeout_s must be a number greater than 0, not 0.0"),
        (["run", "q", "--llm-timeout", "-5"], "--llm-timeout: timeout_s must be a number greater than 0, not -5.0"),
        (["run", "q", "--parallel", "17"], "--parallel: parallel must be a whole number from 1 to 16, not 17"),
        (
            ["run", "q", "--max-iterations", "0"],
            "--max-iterations: max_iterations must be a whole number from 1 to 500",
        ),
        (["run", "q", "--max-cost", "-1"], "--max-cost: max_total_cost_usd must be a number of 0 or more, not -1.0"),
        (["library", "search", "x", "--limit", "0"], "--limit: must be a whole number of 1 or more, not 0"),
        (["rerun", "r", "sq_001", "--priority", "2"], "--priority: priority must be a number from 0 to 1, not 2.0"),
        (["run", "q", "--set", "max_depth=9"], "--set max_depth: must be a whole number from 1 to 4, not 9"),
        (["run", "q", "--set", "parallel=0"], "--set parallel: must be a whole number from 1 to 16, not 0"),
        (["run", "q", "--llm-timeout", "soon"], "--llm-timeout: timeout_s must be a number greater than 0, not 'soon'"),
        (["run", "q", "--parallel", "two"], "--parallel: parallel must be a whole number from 1 to 16, not 'two'"),
        (["run", "q", "--llm", "gpt"], "--llm: invalid choice: 'gpt' (choose from 'local', 'openai')"),
    ],
)
def test_every_option_error_is_one_line_naming_the_option_and_its_range(tmp_path, arguments, message):
    done = run_cli(arguments, tmp_path / "nowhere" / "arbor.db")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"arbor: {message}"), done.stderr
    assert done.stdout == ""
    db = tmp_path / "nowhere" / "arbor.db"
    if db.exists():  # a refused run may leave the database it opened, never a run in it
        conn = sqlite3.connect(str(db))
        assert conn.execute("select count(*) from runs").fetchone()[0] == 0
        conn.close()
