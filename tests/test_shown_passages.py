"""A branch never shows the model the same passage twice, and never searches the same words twice."""

from __future__ import annotations

import json

from research_core.research.first_queries import fresh_queries
from research_core.research.shown_passages import further_passages, not_shown_before
from research_core.schemas import Source
from research_core.search.library import DocumentLibrary
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "What is write-ahead logging in SQLite?"


def test_a_passage_shown_once_is_skipped_and_a_new_one_of_the_same_page_is_not() -> None:
    page = Source.make("file:///wal.html", "WAL", "SQLite write-ahead logging keeps readers going.", 1.0, "library")
    fresh, keys, skipped = not_shown_before([page], [], QUESTION, 350)
    assert fresh == [page] and not skipped
    again, _, skipped = not_shown_before([page], keys, QUESTION, 350)
    assert again == [] and skipped == [page]
    other = page.model_copy(update={"snippet": "A checkpoint moves WAL content back into the SQLite database."})
    assert not_shown_before([other], keys, QUESTION, 350)[0] == [other]


def test_fresh_queries_are_new_words_that_keep_the_subject() -> None:
    used = [QUESTION, "write-ahead logging SQLite"]
    queries = fresh_queries(QUESTION, used, limit=4)
    assert queries and all(q not in used and "SQLite" in q for q in queries)
    assert fresh_queries("How does SQLite isolate transactions?", [], ["isolation levels"])[0] == "isolation levels"


def test_a_branch_that_keeps_finding_the_same_page_reads_it_once_and_searches_new_words(tmp_path) -> None:
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text(
        "wal.md",
        "# Write-Ahead Logging\n\nIn SQLite, write-ahead logging (WAL) appends changes to a separate WAL file; "
        "a checkpoint later copies them back into the database.",
        kind="md",
    )
    unsupported = json.dumps(
        {"findings": [{"text": "Bananas ripen faster in paper bags.", "confidence": 0.9, "sources": [1]}]}
    )
    repeat = json.dumps({"queries": [QUESTION], "reasoning": "the same again"})
    scripted = ScriptedLLM(script={"extract_findings": unsupported, "plan_queries": repeat})
    with serve(scripted) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library], provider="local")
        snap = runner.start(
            QUESTION,
            config(
                mode="flat",
                auto_approve=True,
                search_backends=["library"],
                sub_question_min_iterations=3,
                sub_question_max_iterations=3,
                max_iterations=6,
            ),
        )
        calls = [task for task, _ in scripted.recorded_calls()]
    assert snap.status in ("completed", "completed_with_fallback"), snap.error
    result = runner.result(snap.run_id)
    assert result.sub_questions[0].iteration_count >= 3
    assert calls.count("extract_findings") == 1  # the passage was shown once, not at every iteration
    assert any("already read" in e.message for e in result.log)
    searched = [e.message for e in result.log if e.kind == "search"]
    assert len(set(searched)) == len(searched), searched  # no query searched twice


def test_a_library_page_read_once_offers_its_next_passage_instead_of_nothing(tmp_path) -> None:
    # a page longer than one passage: the search finds its best passage at every query; the branch
    # that has read it is shown the next one, then the one after, and nothing it has read again
    library = DocumentLibrary(tmp_path / "arbor.db")
    paragraphs = [
        f"Paragraph {n}: in SQLite, write-ahead logging (WAL) {fact}. " + "Filler words about the page. " * 30
        for n, fact in enumerate(
            [
                "appends changes to a separate WAL file",
                "lets readers continue while a writer commits",
                "moves content back into the database at a checkpoint",
            ]
        )
    ]
    library.add_text("wal.md", "# Write-Ahead Logging\n\n" + "\n\n".join(paragraphs), kind="md")
    [best] = library.search(QUESTION, 5)
    shown_texts, shown = [best.snippet], not_shown_before([best], [], QUESTION, 2000)[1]
    for _ in range(2):
        _, _, skipped = not_shown_before([best], shown, QUESTION, 2000)
        further, keys = further_passages(skipped, [library], QUESTION, shown, 2000)
        assert len(further) == 1 and further[0].snippet not in shown_texts
        shown_texts.append(further[0].snippet)
        shown += keys
    _, _, skipped = not_shown_before([best], shown, QUESTION, 2000)
    assert further_passages(skipped, [library], QUESTION, shown, 2000) == ([], [])
    assert all(
        any(fact in text for text in shown_texts) for fact in ("separate WAL file", "readers continue", "checkpoint")
    )
