"""Engine picks: where the model picks nothing from a shown source, the engine adds the sentence
closest in meaning to the branch's question, above a bar, through the same rules as the model's picks.

The similarities come from the real bundled embedding model (all-MiniLM-L6-v2 run on numpy)."""

from __future__ import annotations

import json

import pytest

from research_core.research.engine_picks import ENGINE_PICK_BAR, engine_picks, field_picks
from research_core.research.quotes import NumberedSentence
from research_core.schemas import ExtractedFinding
from research_core.search.library import DocumentLibrary
from research_core.text import embedding
from research_core.text.names import without_names
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

pytestmark = pytest.mark.skipif(not embedding.available(), reason="the bundled embedding model is not installed")

QUESTION = "How does Node.js stream a large file without reading all of it into memory?"
ANSWER = (
    "A readable file stream reads the file in chunks of highWaterMark bytes, so only one chunk is held "
    "in memory at a time."
)
ASIDE = "The process.umask() method sets the file mode creation mask of the Node.js process today."
NOTHING = json.dumps({"findings": [], "reasoning": "nothing here"})


def test_the_sentence_about_the_question_is_picked_and_the_aside_is_not():
    sentences = [NumberedSentence(1, 0, ASIDE), NumberedSentence(2, 1, ANSWER)]
    picks = engine_picks(QUESTION, sentences, [])
    assert [p.sentences for p in picks] == [[2]]
    assert picks[0].confidence < 0.7  # it says the model did not choose it


def test_no_pick_from_a_source_the_model_already_picked_from():
    sentences = [NumberedSentence(1, 0, ANSWER), NumberedSentence(2, 0, ASIDE)]
    assert engine_picks(QUESTION, sentences, [ExtractedFinding(sentences=[2])]) == []


def test_names_do_not_make_a_sentence_relevant():
    focus = "How does PostgreSQL rank full-text search results?"
    named = "PostgreSQL's syntax for RETURNING is modelled after the SQL standard in PostgreSQL."
    assert without_names(named, ["PostgreSQL"]) == "syntax for RETURNING is modelled after the SQL standard in ."
    assert embedding.similarities(without_names(focus, ["PostgreSQL"]), [without_names(named, ["PostgreSQL"])])[0] < (
        ENGINE_PICK_BAR
    )
    assert engine_picks(focus, [NumberedSentence(1, 0, named)], []) == []


def test_the_numpy_encoder_matches_the_reference_implementation():
    """Cosines the sentence-transformers implementation of the same model gives for these pairs."""
    query = "how does streaming save memory when reading a file"
    texts = [
        "A readable stream reads the file in chunks of highWaterMark bytes, 64 KiB by default.",
        "process.umask() sets the file mode creation mask.",
        "The fs.readFile() method reads the entire contents of a file into memory.",
    ]
    assert embedding.similarities(query, texts) == pytest.approx([0.6428, 0.2433, 0.6200], abs=0.005)


def _library(tmp_path) -> DocumentLibrary:
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("streams.md", f"# Streams in Node.js\n\n{ASIDE} {ANSWER}", kind="md")
    return library


@pytest.mark.parametrize("picks", [True, False])
def test_a_step_the_model_answers_with_nothing_keeps_the_engines_pick(tmp_path, picks):
    with serve(ScriptedLLM(script={"extract_findings": NOTHING})) as (url, _):
        runner = make_runner(tmp_path, url, backends=[_library(tmp_path)])
        run = config(mode="flat", auto_approve=True, search_backends=["library"], engine_picks=picks, max_iterations=2)
        snap = runner.start(QUESTION, run)
    findings = runner.result(snap.run_id).sub_questions[0].findings
    if not picks:
        assert findings == []
        return
    assert [f.quote for f in findings] == [ANSWER]
    assert findings[0].confidence == 0.5


DIRECTIVE = (
    "# core - Apache HTTP Server\n\n## KeepAliveTimeout Directive\n\nDescription:\n\nAmount of time the server will "
    "wait for subsequent requests on a persistent connection\n\nSyntax:\n\nKeepAliveTimeout num[ms]\n\nDefault:\n\n"
    "KeepAliveTimeout 5\n\nContext:\n\nserver config, virtual host\n\nThe number of seconds Apache httpd will "
    "wait for a subsequent request before closing the connection. Setting KeepAliveTimeout to a high value may "
    "cause performance problems in heavily loaded servers. The higher the timeout, the more server processes "
    "will be kept occupied waiting on connections with idle clients.\n"
)


def test_the_field_a_question_asks_for_is_picked_from_a_definition_table(tmp_path):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("core.md", DIRECTIVE, kind="md")
    # the model's picks point elsewhere, as the embedded model's did
    with serve(ScriptedLLM(script={"extract_findings": NOTHING})) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library])
        run = config(mode="flat", auto_approve=True, search_backends=["library"], engine_picks=True, max_iterations=2)
        snap = runner.start("What is the default KeepAliveTimeout of the Apache HTTP Server?", run)
    result = runner.result(snap.run_id)
    assert "Default: KeepAliveTimeout 5" in [f.quote for f in result.sub_questions[0].findings]
    assert "KeepAliveTimeout 5 [1]" in result.final_answer


def test_a_field_the_question_does_not_ask_for_or_about_another_subject_is_not_picked():
    shown = [
        NumberedSentence(1, 0, "Context: server config, virtual host"),
        NumberedSentence(2, 0, "Default: MaxRanges 200"),
        NumberedSentence(3, 1, "Default: KeepAliveTimeout 5"),
    ]
    question = "What is the default KeepAliveTimeout of the Apache HTTP Server?"
    assert [p.sentences for p in field_picks(question, shown, [])] == [[3]]
    assert field_picks(question, shown, [ExtractedFinding(sentences=[3], confidence=0.9)]) == []
    # picked with its neighbour, the field is still picked on its own
    with_neighbour = [ExtractedFinding(sentences=[2, 3], confidence=0.9)]
    assert [p.sentences for p in field_picks(question, shown, with_neighbour)] == [[3]]
