"""A quote far in meaning from the user's question is not a finding, even when it shares a topic
word with it (the real bundled embedding model decides); a branch on a topic the user added
counts its own question too."""

from __future__ import annotations

import json

import pytest

from research_core.research.far_quotes import FAR_BAR, far_quotes
from research_core.search.library import DocumentLibrary
from research_core.text import embedding
from research_core.text.names import without_names
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

pytestmark = pytest.mark.skipif(not embedding.available(), reason="the bundled embedding model is not installed")

QUESTION = "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
MODEL_BRANCH = "How does PostgreSQL support window functions compared to other databases?"
ADDED_BRANCH = "Which tools monitor the health of a PostgreSQL database?"
ON_TOPIC = (
    "A window function performs a calculation across a set of table rows that are somehow related to the "
    "current row, and PostgreSQL calls it with an OVER clause."
)
MONITORING = (  # PostgreSQL 15 manual, 25.3 Routine Database Maintenance Tasks
    "check_postgres is available for monitoring database health and reporting unusual conditions. "
    "check_postgres integrates with Nagios and MRTG, but can be run standalone too."
)
BOTH = json.dumps({"findings": [{"sentences": [1]}, {"sentences": [2]}], "reasoning": "both"})


def test_the_monitoring_quote_is_far_from_the_question_and_the_window_quote_is_not():
    assert far_quotes([ON_TOPIC, MONITORING], QUESTION, MODEL_BRANCH) == {1}


def test_a_branch_on_a_topic_the_user_added_keeps_quotes_about_it():
    assert far_quotes([MONITORING], QUESTION, ADDED_BRANCH) == set()


def test_the_bar_is_low():
    names = ["PostgreSQL", "SQLite"]
    score = embedding.similarities(without_names(QUESTION, names), [without_names(MONITORING, names)])[0]
    assert score < FAR_BAR
    assert embedding.similarities(without_names(QUESTION, names), [without_names(ON_TOPIC, names)])[0] > 0.3


DECOMPOSED = json.dumps(
    {
        "strategy": "parts",
        "reasoning": "scripted",
        "sub_questions": [
            {"question": "What are window functions in PostgreSQL?", "priority": 1.0, "rationale": "first part"},
            {"question": MODEL_BRANCH, "priority": 0.8, "rationale": "second part"},
        ],
    }
)


def test_a_run_keeps_the_window_quote_and_refuses_the_monitoring_one(tmp_path):
    """The model's own branch question shares "databases" with the monitoring quote, so the word
    rule lets it in; the user's question does not."""
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("window.md", f"# PostgreSQL window functions and databases\n\n{ON_TOPIC} {MONITORING}", kind="md")
    with serve(ScriptedLLM(script={"extract_findings": BOTH, "decompose": DECOMPOSED})) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library])
        run = config(
            mode="hierarchical", auto_approve=True, search_backends=["library"], engine_picks=False, max_iterations=12
        )
        snap = runner.start(QUESTION, run)
    result = runner.result(snap.run_id)
    quotes = {f.quote for row in result.sub_questions for f in row.findings}
    assert ON_TOPIC in quotes
    assert not any("check_postgres" in q for q in quotes)
    assert any("far in meaning from the question" in entry.message for entry in runner.snapshot(snap.run_id).log)


def test_the_command_asked_about_stays_in_the_comparison():
    # held-out round FF/GG, s7: without its keywords "What does EXPLAIN ANALYZE show in PostgreSQL?" read as
    # "What does show in ?", and the EXPLAIN page's own summary was refused as far in meaning
    question = "What does EXPLAIN ANALYZE show in PostgreSQL?"
    plan = "You can use the EXPLAIN command to see what query plan the planner creates for any query."
    executed = "Keep in mind that the statement is actually executed when the ANALYZE option is used."
    assert far_quotes([plan, executed, MONITORING], question) == {2}


def test_an_acronym_the_question_is_about_stays_in_the_comparison():
    """ "JSON" left out of "How do PostgreSQL and SQLite differ in their JSON support ..." left "which
    functions does each provide": SQLite's sentence on json_extract() scored 0.04 and was refused."""
    question = (
        "How do PostgreSQL and SQLite differ in their JSON support: which functions does each provide, "
        "and how are JSON values stored?"
    )
    quote = (  # SQLite's json1.html
        "There is a subtle incompatibility between the json_extract() function in SQLite and the json_extract() "
        "function in MySQL. The MySQL version of json_extract() always returns JSON."
    )
    assert far_quotes([quote, MONITORING], question, "What JSON functions does SQLite provide?") == {1}
