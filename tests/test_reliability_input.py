"""Bad input: questions, plan edits and library uploads. A clear message every time, and
nothing stored half-way (no run record for a refused question, no document for a refused file).
"""

from __future__ import annotations

import json
import re
import sqlite3
import unicodedata

import pytest
from sqlalchemy import create_engine, inspect, text

from research_core.cli.main import main
from research_core.documents.parsing import MAX_FILE_BYTES
from research_core.runs.errors import RunError
from research_core.runs.inputs import MAX_QUESTION_CHARS
from research_core.search.library import DocumentLibrary, LibraryError
from research_core.storage.location import locate
from tests.conftest import config

pytestmark = pytest.mark.timeout(60)

QUESTION = "Compare React, Vue, and Angular for building web applications"


def run_rows(db) -> int:
    """Rows of the runs table in `db` (a path, a URL or a StoreLocation), 0 when it has no runs table."""
    engine = create_engine(locate(db).sqlalchemy_url())
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table("runs"):
                return 0
            return int(conn.execute(text("select count(*) from runs")).scalar())
    finally:
        engine.dispose()


# ---- questions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("", "The question is empty"),
        ("   \n\t  ", "The question is empty"),
        ("\x00\x07\x1b\u200b\u202e", "The question is empty"),  # only control and format characters
        ("x" * 20_000, f"the limit is {MAX_QUESTION_CHARS:,}"),
        ("Why? " * 4_000, f"the limit is {MAX_QUESTION_CHARS:,}"),
    ],
    ids=["empty", "whitespace", "only-controls", "20000-chars", "20000-chars-words"],
)
def test_a_refused_question_leaves_no_run_record(runner, question, message):
    with pytest.raises(RunError, match=message):
        runner.start(question, config(auto_approve=True))
    with pytest.raises(RunError, match=message):
        runner.start_background(question, config(auto_approve=True))
    assert runner.runs() == []
    assert run_rows(runner.location) == 0


def test_a_refused_question_on_the_cli_is_one_line_and_stores_nothing(tmp_path, capsys, scripted):
    url, _ = scripted
    db = tmp_path / "cli.db"
    for question in ("", "  ", "q" * 20_000):
        code = main(["run", question, "--auto", "--db", str(db), "--llm", "openai", "--llm-base-url", url])
        err = capsys.readouterr().err
        assert code == 2
        assert err.startswith("arbor: ") and err.count("\n") == 1 and "Traceback" not in err
    assert run_rows(db) == 0


def test_control_characters_are_removed_before_anything_is_stored_or_sent(runner, scripted):
    _, script = scripted
    question = "What is\x00 quantum\x07 computing?\x1b[31m\u202e\u200b"
    snap = runner.start(question, config(auto_approve=True))
    assert snap.status == "completed", snap.error
    stored = runner.runs()[0].question
    assert stored == "What is quantum computing?[31m"
    assert not any(unicodedata.category(c)[0] == "C" for c in stored)
    for _, body in script.calls:
        text = json.dumps(body["messages"], ensure_ascii=False)
        assert "\x00" not in text and "\x07" not in text and "\u202e" not in text


@pytest.mark.parametrize(
    "question",
    [
        "ما هي الحوسبة الكمومية وكيف تعمل؟",  # Arabic, right to left
        "מהם היתרונות והחסרונות של אנרגיה גרעינית?",  # Hebrew
        "量子コンピュータとは何ですか？その仕組みと応用を比較してください。",  # Japanese
        "Compare עברית and 日本語 writing systems, and explain their history",  # mixed directions
    ],
    ids=["arabic", "hebrew", "japanese", "mixed"],
)
def test_right_to_left_and_japanese_questions_run_and_round_trip(runner, question):
    snap = runner.start(question, config(auto_approve=True))
    assert snap.status == "completed", snap.error
    assert runner.runs()[0].question == question
    result = runner.result(snap.run_id)
    from research_core.output.export import export_result

    for fmt in ("md", "html", "json"):
        content, _, _ = export_result(result, fmt)
        if fmt == "json":
            assert json.loads(content)["question"] == question
        else:
            assert question in content or question.replace("?", "").split()[0] in content


# ---- plan edits -----------------------------------------------------------------------

BAD_PLANS = {
    "duplicate-ids": (
        [{"id": "a", "question_text": "Q1?"}, {"id": "a", "question_text": "Q2?"}],
        "used twice",
    ),
    "cycle": (
        [
            {"id": "a", "question_text": "Q1?", "parent_id": "b"},
            {"id": "b", "question_text": "Q2?", "parent_id": "a"},
        ],
        "cycle",
    ),
    "self-parent": ([{"id": "a", "question_text": "Q1?", "parent_id": "a"}], "cycle"),
    "unknown-parent": ([{"id": "a", "question_text": "Q1?", "parent_id": "zz"}], "not in the plan"),
    "too-deep": (
        [{"id": "l0", "question_text": "Level 0?"}]
        + [{"id": f"l{i}", "question_text": f"Level {i}?", "parent_id": f"l{i - 1}"} for i in range(1, 6)],
        "the limit is",
    ),
    "priority-text": ([{"question_text": "Q?", "priority": "high"}], "must be a number"),
    "priority-bool": ([{"question_text": "Q?", "priority": True}], "must be a number"),
    "priority-7": ([{"question_text": "Q?", "priority": 7}], "outside 0-1"),
    "priority-nan": ([{"question_text": "Q?", "priority": float("nan")}], "outside 0-1"),
    "empty-text": ([{"question_text": "   ", "priority": 0.5}], "empty"),
    "huge-text": ([{"question_text": "x" * 20_000, "priority": 0.5}], "longer than"),
    "no-rows": ([], "no sub-questions"),
    "row-not-object": (["just a string"], "must be an object"),
    "id-not-text": ([{"id": 5, "question_text": "Q?"}], "must be text"),
}


@pytest.mark.parametrize("case", list(BAD_PLANS))
def test_a_bad_plan_edit_is_refused_at_the_gate_and_changes_nothing(runner, case):
    rows, message = BAD_PLANS[case]
    snap = runner.start(QUESTION, config())
    assert snap.status == "awaiting_review"
    before = [(b.id, b.question_text, b.priority) for b in snap.branches]
    snap = runner.resume(snap.run_id, {"action": "approve", "sub_questions": rows})
    assert snap.status == "awaiting_review"
    assert message in snap.pending["error"]
    assert [(b.id, b.question_text, b.priority) for b in snap.branches] == before
    assert not snap.findings and not [e for e in snap.costs.entries if e.task == "plan_queries"]


@pytest.mark.parametrize("case", ["duplicate-ids", "cycle", "too-deep", "priority-text"])
def test_a_bad_supplied_plan_creates_no_run(runner, case):
    rows, message = BAD_PLANS[case]
    with pytest.raises(RunError, match=f"The plan is invalid: .*{re.escape(message)}"):
        runner.start(QUESTION, config(auto_approve=True), plan={"sub_questions": rows})
    assert runner.runs() == []


def test_a_bad_plan_file_on_the_cli_is_one_line_and_stores_nothing(tmp_path, capsys, scripted):
    url, _ = scripted
    db = tmp_path / "cli.db"
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"sub_questions": BAD_PLANS["cycle"][0]}))
    broken = tmp_path / "broken.json"
    broken.write_text('{"sub_questions": [')
    for path in (plan, broken, tmp_path / "missing.json"):
        code = main(
            ["run", QUESTION, "--plan", str(path), "--auto", "--db", str(db), "--llm", "openai", "--llm-base-url", url]
        )
        err = capsys.readouterr().err
        assert code == 2, err
        assert err.startswith("arbor: ") and "Traceback" not in err
    assert run_rows(db) == 0


def test_a_bad_step_gate_answer_is_refused_and_the_gate_stays_open(runner):
    snap = runner.start(QUESTION, config(auto_approve=True, step_mode=True, parallel=1))
    assert snap.status == "awaiting_step"
    done = next(b.id for b in snap.branches if b.status == "completed")
    for answer, message in [
        ({"action": "continue", "edits": [{"id": done, "skip": True}]}, "only pending branches"),
        ({"action": "continue", "edits": [{"id": "nope"}]}, "does not name a branch"),
        ({"action": "continue", "edits": "skip all"}, "must be a list"),
        ({"action": "explode"}, "Unknown action"),
        (42, "Answer 'continue'"),
    ]:
        snap = runner.resume(snap.run_id, answer)
        assert snap.status == "awaiting_step"
        assert message in snap.pending["error"], (answer, snap.pending["error"])
    snap = runner.resume(snap.run_id, "stop")
    assert snap.status in ("completed", "completed_with_fallback")


# ---- library uploads ------------------------------------------------------------------

PDF_BYTES = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
ZIP_BYTES = b"PK\x03\x04" + b"\x00" * 64


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.txt", b"", "is empty"),
        ("blank.md", b"   \n\n\t  \n", "no text"),
        ("binary.txt", bytes(range(256)) * 4, "binary"),
        ("image.md", PNG_BYTES, "does not match its extension"),
        ("archive.txt", ZIP_BYTES, "does not match its extension"),
        ("report.txt", PDF_BYTES, "Rename it to .pdf"),
        ("notes.pdf", b"Just plain text pretending to be a PDF.", "is not a PDF"),
        ("broken.pdf", b"%PDF-1.7\n this is not really a pdf", "PDF"),
        ("latin1.txt", "café crème".encode("latin-1"), "not UTF-8"),
        ("program.exe", b"MZ\x90\x00", "unsupported"),
        ("noextension", b"hello", "unsupported"),
        ("huge.txt", b"a" * (MAX_FILE_BYTES + 1), "MB"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 20 else None,
)
def test_a_refused_upload_stores_no_document(tmp_path, name, data, message):
    lib = DocumentLibrary(tmp_path / "lib.db")
    lib.add_text("keep.md", "# Keep\n\nThis document must survive refused uploads.", kind="md")
    with pytest.raises(LibraryError, match=message):
        lib.add_bytes(name, data)
    assert [d.name for d in lib.list_documents()] == ["keep.md"]
    conn = sqlite3.connect(str(tmp_path / "lib.db"))
    try:
        assert conn.execute("select count(*) from library_chunks").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_refused_replacement_keeps_the_old_document(tmp_path):
    lib = DocumentLibrary(tmp_path / "lib.db")
    old = lib.add_bytes("notes.md", b"# Notes\n\nVue is a progressive framework.")
    with pytest.raises(LibraryError):
        lib.add_bytes("notes.md", PNG_BYTES)
    assert lib.get(old.id) is not None
    assert lib.search("progressive framework", 5)


def test_refused_files_on_the_cli_say_why_and_add_the_good_ones(tmp_path, capsys):
    good = tmp_path / "good.md"
    good.write_text("# Good\n\nAngular is a TypeScript platform.")
    fake = tmp_path / "fake.pdf"
    fake.write_text("not a pdf at all")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    db = tmp_path / "lib.db"
    code = main(["library", "add", str(good), str(fake), str(empty), str(tmp_path / "missing.txt"), "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.err
    assert captured.err.count("arbor: ") == 3
    assert [d.name for d in DocumentLibrary(db).list_documents()] == ["good.md"]
