"""The question's shape, read by code: parts, subjects, multi-part wording, standalone sub-questions."""

from __future__ import annotations

import pytest

from research_core.planning.classify import mode_from_signals
from research_core.planning.question_shape import (
    compared_topic,
    defined_topic,
    frame_terms,
    multi_part_signals,
    question_parts,
    stand_alone,
    subjects,
    with_frame,
)


@pytest.mark.parametrize(
    "question",
    [
        "Compare how PostgreSQL and SQLite handle concurrent writes and locking.",
        "What caused the Great Depression, how did it spread, and which reforms followed?",
        "Evaluate the competing positions of Keynesian and Austrian economists on the 1929 crash.",
        "What are the pros and cons of SQLite for web apps, and when should PostgreSQL be chosen instead?",
        "PostgreSQLとSQLiteのインデックスの種類を比較し、それぞれの使いどころを説明してください。",
        "React vs Vue for a small team",
        "What were the economic, social and political effects of the printing press?",
        "How do PostgreSQL and SQLite differ in their JSON support?",
        "What is MVCC? How does PostgreSQL use it?",
    ],
)
def test_multi_part_questions_are_recognised_by_their_wording(question):
    assert multi_part_signals(question), question
    mode, why = mode_from_signals(question, multi_part_signals(question), "simple")
    assert mode == "hierarchical" and why  # the model saying "simple" cannot talk it down


@pytest.mark.parametrize(
    "question",
    [
        "What does the SQLite VACUUM command do?",
        "What is the default port of a PostgreSQL server?",
        "Who wrote Hamlet?",
        "What is quantum computing?",
        "How large can an SQLite database file be?",
    ],
)
def test_single_facts_stay_flat_even_when_the_model_calls_them_complex(question):
    assert multi_part_signals(question) == []
    assert mode_from_signals(question, [], "complex")[0] == "flat"
    assert mode_from_signals(question, [], "simple")[0] == "flat"


def test_a_long_question_the_model_calls_complex_goes_hierarchical():
    question = (
        "I need to understand the history of relational database engines from the seventies until the present day"
    )
    assert mode_from_signals(question, multi_part_signals(question), "complex")[0] == "hierarchical"


def test_parts_and_subjects():
    q = (
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions, "
        "and which settings of Python's sqlite3 module control them?"
    )
    assert len(question_parts(q)) == 3
    assert subjects(q)[:3] == ["PostgreSQL", "SQLite", "Python"]
    assert subjects("Fast branch: how does SQLite handle writers?") == ["SQLite"]
    assert subjects("PostgreSQLとSQLiteを比較") == ["PostgreSQL", "SQLite"]


def test_a_sub_question_without_its_subject_is_made_to_stand_alone():
    q = "Compare PostgreSQL and SQLite for embedded use"
    assert stand_alone("When should each option be used?", q) == "When should each option be used (PostgreSQL, SQLite)?"
    assert stand_alone("When should SQLite be used?", q) == "When should SQLite be used?"


def test_a_sub_question_naming_a_command_but_no_product_gets_the_questions_product():
    q = "Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?"
    # "VACUUM" alone was searched across every manual, and SQLite's VACUUM page answered a PostgreSQL report
    assert stand_alone("What is VACUUM and why does it need to be run?", q) == (
        "What is VACUUM and why does it need to be run (PostgreSQL)?"
    )
    named = "How does PostgreSQL's VACUUM reclaim space?"
    assert stand_alone(named, q) == named
    python = "How does Python's sqlite3 module report how many rows a statement changed?"
    assert stand_alone("What does SQLite's changes() return?", python) == "What does SQLite's changes() return?"
    # a branch the user added about someone else keeps to its own subject
    other = "What did Zorblax Quuxington write about llama husbandry?"
    assert stand_alone(other, "Compare React and Vue") == other


def test_a_sub_question_that_lost_the_question_frame_gets_its_words_back():
    question = (
        "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, "
        "how are queries written, and how are results ranked?"
    )
    lost = "What are the differences in how documents are indexed in PostgreSQL and SQLite?"
    assert frame_terms(lost, question) == "full-text search"
    assert frame_terms("How do PostgreSQL and SQLite rank full-text search results?", question) == ""
    # no "head: clauses" frame, or only names missing: nothing to add
    assert (
        frame_terms(
            "How does SQLite isolate transactions?", "What levels does PostgreSQL offer, how does SQLite isolate?"
        )
        == ""
    )
    assert (
        frame_terms("How does SQLite store values?", "How do PostgreSQL and SQLite differ: which functions exist?")
        == ""
    )


def test_a_question_opening_with_a_definition_frames_its_later_clauses_with_that_topic():
    question = (
        "What are window functions, how does PostgreSQL support them, and does SQLite support the same OVER clause?"
    )
    assert defined_topic(question) == "window functions"
    # "the same OVER clause" searched alone found the query optimizer's join clauses and REPLACE/ON CONFLICT
    assert frame_terms("Does SQLite support the same OVER clause as PostgreSQL?", question) == "window functions"
    assert frame_terms("how does PostgreSQL support them", question) == "window functions"
    assert frame_terms("How does PostgreSQL support window functions?", question) == ""
    assert defined_topic("What is a tablespace, and when should one be used?") == "tablespace"


@pytest.mark.parametrize(
    "question",
    [
        "What is write-ahead logging in SQLite?",  # one clause: nothing to frame
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions?",
        # a long opening is a clause of its own, not a term that frames the others
        "What are the pros and cons of using SQLite for a production web application, and when should "
        "PostgreSQL be chosen instead?",
        "Why does PostgreSQL need VACUUM, how does autovacuum work, and which settings tune it?",
    ],
)
def test_only_a_short_defined_term_frames_a_question(question):
    assert defined_topic(question) == ""


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("Compare full-text search in PostgreSQL and SQLite: how are documents indexed?", "full-text search"),
        ("Compare reverse proxying with mod_proxy and with mod_rewrite: how is each configured?", "reverse proxying"),
        # the options themselves, coordinated or named, are not what every query must carry
        ("Compare name-based and IP-based virtual hosts in Apache: how is each configured?", ""),
        ("Compare fs.readFile and fs.createReadStream in Node.js: how does each read a file?", ""),
        ("How do Node.js's cluster module and worker_threads differ: are workers processes?", ""),
        ("Compare how PostgreSQL and SQLite handle concurrent writes and locking.", ""),
    ],
)
def test_what_a_comparison_compares_is_read_from_its_head(question, topic):
    assert compared_topic(question) == topic


def test_searches_of_a_branch_carry_the_frame_words_it_lost():
    frame = "full-text search"
    queries = with_frame(["documents indexed PostgreSQL SQLite", "SQLite FTS5 full text index"], frame)
    assert queries == ["documents indexed PostgreSQL SQLite full-text search", "SQLite FTS5 full text index"]
    assert with_frame(["a query"], "") == ["a query"]
