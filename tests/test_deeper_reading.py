"""A later step reads the rest of the passages the branch's findings cite before searching again."""

from __future__ import annotations

import json

from research_core.research.deeper_reading import rest_of
from research_core.schemas import Source
from tests.conftest import library_run
from tests.fakes.llm_server import ScriptedLLM, _tag, _user_text, numbered_sentences

QUESTION = "What must be done in SQLite before foreign key constraints are enforced?"
FIRST = "Before foreign key constraints are enforced in SQLite, the library must be compiled with foreign key support."
FILLER = (
    "The project began in the spring of the year two thousand as a small embedded engine for a warship. "
    "Its authors wrote the first version over a few months and released it into the public domain. "
    "Many companies ship the library inside their phones, browsers and operating systems today. "
    "The source code is kept in a version control system written by the same authors. "
)
MECHANISM = "Run PRAGMA foreign_keys = ON on each database connection before foreign key constraints are enforced."


def test_the_rest_of_a_passage_is_what_its_shown_window_left_out():
    source = Source(
        id="a",
        backend="library",
        title="SQLite foreign keys",
        url="library://fk.md",
        snippet=f"{FIRST} {FILLER}{MECHANISM}",
    )
    rest = rest_of(source, QUESTION, 350)
    assert rest is not None and rest.id != source.id
    assert MECHANISM in rest.snippet and FIRST not in rest.snippet
    short = Source(id="b", backend="library", title="Short", url="library://short.md", snippet=FIRST)
    assert rest_of(short, QUESTION, 350) is None  # the window showed all of it


def _pick_pragma_or_first(body: dict) -> str:
    """An extraction answer: the sentence naming PRAGMA in each source, else the source's first sentence."""
    chosen: dict[int, int] = {}
    for source, number, sentence in numbered_sentences(_tag(_user_text(body), "sources")):
        if "PRAGMA" in sentence or source not in chosen:
            chosen[source] = number
    picks = [{"sentences": [k], "confidence": 0.8} for k in chosen.values()]
    return json.dumps({"findings": picks, "reasoning": "scripted"})


def test_a_later_step_shows_the_rest_of_the_cited_passage_without_asking_for_queries(tmp_path):
    pages = {
        "sqlite-foreign-keys.md": f"# SQLite foreign keys\n\n{FIRST} {FILLER}{MECHANISM}",
        "sqlite-history.md": "# SQLite history of foreign keys\n\nSQLite began to enforce foreign key constraints "
        "with version 3.6.19, long after it first parsed them.",
    }
    scripted = ScriptedLLM(script={"extract_findings": _pick_pragma_or_first})
    runner, snap = library_run(
        tmp_path,
        pages,
        QUESTION,
        scripted,
        provider="local",
        sub_question_min_iterations=2,
        findings_for_stop=3,
        engine_picks=False,
    )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    quotes = [f.quote for b in result.sub_questions for f in b.findings]
    # the first step was shown the window holding FIRST; the second read on to the PRAGMA sentence
    assert any(MECHANISM in (q or "") for q in quotes), quotes
    assert any(e.message.startswith("Reading further into") for e in result.log)
    assert scripted.count("plan_queries") == 0
