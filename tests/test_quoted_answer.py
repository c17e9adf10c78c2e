"""With the embedded model a branch's answer is its findings' quotes, and no overview is written."""

from __future__ import annotations

import pytest

from research_core.synthesis.quoted_answer import answers_by_quote, quoted_answer
from research_core.text.citations import cited_source_ids
from tests.conftest import config, library_run
from tests.fakes.llm_server import ScriptedLLM

QUESTION = "Are SQLite's date and time functions deterministic?"
QUOTE = "The date and time functions are usually deterministic, but not when given the argument 'now'."
PAGES = {
    "sqlite-date-functions.md": f"# SQLite date and time functions\n\n{QUOTE} They return text in ISO-8601 format.",
}
# the weak model's retelling: "usually" dropped, which the page contradicts for 'now'
RETELLING = "All of SQLite's date and time functions are deterministic [1]."


def test_quotes_are_listed_most_on_the_question_first_each_once_and_only_added_markers_cite():
    findings = [
        {"text": "x", "quote": "The project was begun in 2000.", "source_ids": ["a1"]},
        {
            "text": "y",
            "quote": "The date functions are deterministic. Index arr[1] is the second item.",
            "source_ids": ["b2"],
        },
        {
            "text": "z",
            "quote": "The date functions are deterministic.  Index arr[1] is the second item.",
            "source_ids": ["b2"],
        },
        {"text": "w", "quote": "A quote from a source the task did not hand over.", "source_ids": ["c3"]},
    ]
    answer = quoted_answer(findings, {"a1", "b2"}, "Are the date functions deterministic?")
    lines = answer.splitlines()
    assert lines == [
        "- The date functions are deterministic. Index arr[1] is the second item. [[src:b2]]",
        "- The project was begun in 2000. [[src:a1]]",
    ]
    assert cited_source_ids(answer) == ["b2", "a1"]  # "arr[1]" stays text


@pytest.mark.parametrize(("provider", "written"), [("local", False), ("openai", True)])
def test_a_flat_run_on_the_embedded_model_answers_with_the_quote_and_another_model_writes(tmp_path, provider, written):
    scripted = ScriptedLLM(script={"synthesize_branch": RETELLING})
    runner, snap = library_run(
        tmp_path,
        PAGES,
        QUESTION,
        scripted,
        provider=provider,
        sub_question_min_iterations=1,
        sub_question_max_iterations=1,
    )
    assert snap.status == "completed", snap.error
    assert scripted.count("synthesize_branch") == int(written)
    if not written:  # the embedded model's report is the page's own sentence, "usually" and all
        report = runner.result(snap.run_id).final_answer
        assert "usually deterministic" in report and "All of SQLite's" not in report, report


def test_a_hierarchical_run_on_the_embedded_model_opens_with_quoted_sentences_and_writes_no_overview(tmp_path):
    scripted = ScriptedLLM(
        script={
            "synthesize_branch": RETELLING,
            "meta_synthesis": "SQLite's date functions are always deterministic [1].",
        }
    )
    question = "Compare the date and time functions of SQLite and their determinism"
    runner, snap = library_run(
        tmp_path,
        PAGES,
        question,
        scripted,
        provider="local",
        mode="hierarchical",
        sub_question_min_iterations=1,
        sub_question_max_iterations=1,
    )
    assert snap.status == "completed", snap.error
    report = runner.result(snap.run_id).final_answer
    lead = report.split("\n## ", 1)[0]
    assert "usually deterministic" in lead, report
    assert "always deterministic" not in report and "All of SQLite's" not in report
    assert scripted.count("synthesize_branch") == 0 and scripted.count("meta_synthesis") == 0


def test_a_report_in_another_language_than_the_sources_is_still_written_by_the_model():
    embedded = config(quoted_answers=True)
    assert answers_by_quote(embedded, QUESTION)
    assert not answers_by_quote(embedded, "SQLiteの日付関数は決定的ですか？")  # a quote cannot translate itself
    assert not answers_by_quote(config(quoted_answers=True, report_language="German"), QUESTION)
    assert not answers_by_quote(config(quoted_answers=False), QUESTION)
