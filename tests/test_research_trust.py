"""What the engine guarantees whatever the model says: mode, on-topic evidence, grounded statements,
approved branches kept (tests/test_deep_research.py), honest coverage, standalone sub-questions."""

from __future__ import annotations

import json

from research_core.output.export import to_markdown
from research_core.research.part_coverage import finding_texts, still_missing, uncovered_parts
from research_core.research.stopping import branch_stop_decision
from research_core.search.library import DocumentLibrary
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

SQLITE_DOC = (
    "# SQLite locking\n\nSQLite allows many concurrent readers but only one writer at a time. "
    "A writer takes a RESERVED lock and then an EXCLUSIVE lock to commit its transaction."
)
SQLITE_WAL = (
    "# SQLite write-ahead log\n\nIn WAL mode SQLite readers do not block the writer, and the writer does not "
    "block readers, so concurrent readers keep working while one writer commits."
)
OFF_TOPIC = (
    "# Front-end frameworks\n\nReact and Vue handle concurrent rendering of user interfaces in the browser. "
    "Writers of JavaScript components prefer a virtual DOM."
)


def _library_runner(tmp_path, url):
    library = DocumentLibrary(tmp_path / "arbor.db")
    library.add_text("sqlite-locking.md", SQLITE_DOC, kind="md")
    library.add_text("sqlite-wal.md", SQLITE_WAL, kind="md")
    library.add_text("frameworks.md", OFF_TOPIC, kind="md")
    return make_runner(tmp_path, url, backends=[library])


def test_an_off_topic_library_document_never_reaches_findings_or_the_report(tmp_path):
    with serve(ScriptedLLM()) as (url, _):
        runner = _library_runner(tmp_path, url)
        snap = runner.start(
            "How does SQLite handle concurrent writers?",
            config(mode="flat", auto_approve=True, search_backends=["library"]),
        )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    by_id = {s.id: s for s in result.sources}
    cited = {by_id[sid].url for f in result.sub_questions[0].findings for sid in f.source_ids}
    assert cited and all("sqlite" in u for u in cited)
    assert "React" not in result.final_answer and "virtual DOM" not in result.final_answer
    refused = [e.message for e in result.log if e.kind == "evidence" and "off-topic" in e.message]
    assert refused and "Front-end frameworks" in refused[0]
    # every finding names one source, never several pages at once
    assert all(len(f.source_ids) == 1 for f in result.sub_questions[0].findings)


def test_a_multi_part_question_goes_hierarchical_when_the_model_says_simple(tmp_path):
    simple = json.dumps({"complexity": "simple", "reasoning": "one topic"})
    with serve(ScriptedLLM(script={"classify": simple})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(
            "What caused the Great Depression, how did it spread, and which reforms followed?", config(mode="auto")
        )
    assert snap.status == "awaiting_review"  # decomposed: a plan waits for review
    assert snap.mode == "hierarchical"
    why = next(e for e in snap.log if e.node == "classify_question")
    assert "3 clauses" in why.reasoning


def test_an_unsupported_statement_is_removed_and_counted(tmp_path):
    answer = (
        "SQLite allows many concurrent readers but only one writer at a time [1]. "
        "SQLite was designed on the Moon by a committee of astronauts in 1850."
    )
    with serve(ScriptedLLM(script={"synthesize_branch": [answer]})) as (url, _):
        runner = _library_runner(tmp_path, url)
        snap = runner.start(
            "How does SQLite handle concurrent writers?",
            config(mode="flat", auto_approve=True, search_backends=["library"], verify_citations=False),
        )
    result = runner.result(snap.run_id)
    assert "Moon" not in result.final_answer
    # the Moon sentence is the one statement checked and not supported
    assert result.synthesis.statements_checked - result.synthesis.statements_supported == 1
    checked, supported = result.synthesis.statements_checked, result.synthesis.statements_supported
    assert f"{supported} of {checked} statements supported" in to_markdown(result)
    grounding = next(e for e in result.log if e.kind == "grounding")
    assert "Moon" in grounding.reasoning


def test_near_duplicate_findings_merge(tmp_path):
    twice = json.dumps(
        {
            "findings": [
                {
                    "text": "SQLite allows many concurrent readers but only one writer at a time.",
                    "confidence": 0.8,
                    "sources": [1],
                },
                {
                    "text": "SQLite allows many concurrent readers, but only one writer at one time.",
                    "confidence": 0.8,
                    "sources": [1],
                },
            ],
            "reasoning": "r",
        }
    )
    with serve(ScriptedLLM(script={"extract_findings": [twice]})) as (url, _):
        runner = _library_runner(tmp_path, url)
        snap = runner.start(
            "How does SQLite handle concurrent writers?",
            config(mode="flat", auto_approve=True, search_backends=["library"]),
        )
    result = runner.result(snap.run_id)
    first = [f for f in result.sub_questions[0].findings if f.iteration == 1]
    assert len(first) == 1
    assert any("merged into an earlier finding" in e.message for e in result.log)


def test_a_branch_without_evidence_is_a_gap_whatever_the_model_says(tmp_path):
    everything = json.dumps({"covered": ["all of it"], "gaps": [], "sufficient": True, "reasoning": "looks complete"})
    plan = {
        "question": "Compare React and Vue",
        "sub_questions": [
            {"id": "sq_001", "question_text": "How does React render components?", "priority": 0.9},
            {
                "id": "sq_002",
                "question_text": "What did Zorblax Quuxington write about llama husbandry?",
                "priority": 0.5,
            },
        ],
    }
    with serve(ScriptedLLM(script={"assess_coverage": [everything]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start("Compare React and Vue", config(auto_approve=True, adaptive_plan=False), plan=plan)
    result = runner.result(snap.run_id)
    gaps = result.coverage["gaps"]
    assert any("Zorblax" in g and "no evidence found" in g for g in gaps), gaps
    assert result.coverage["sufficient"] is False
    assert "How does React render components?" in result.coverage["covered"]
    zorblax = next(b for b in result.sub_questions if b.id == "sq_002")
    assert zorblax.synthesis.startswith("No evidence found")


def test_sub_questions_stand_alone_and_every_part_of_the_question_gets_one(tmp_path):
    two = json.dumps(
        {
            "strategy": "by option",
            "reasoning": "r",
            "sub_questions": [
                {"question": "How do PostgreSQL transactions isolate readers?", "priority": 0.9},
                {"question": "When should each option be used?", "priority": 0.5},
            ],
        }
    )
    question = (
        "How does PostgreSQL isolate transactions, how does SQLite lock its database file, "
        "and which settings of Python's sqlite3 module control transactions?"
    )
    with serve(ScriptedLLM(script={"decompose": [two]})) as (url, _):
        runner = make_runner(tmp_path, url)
        snap = runner.start(question, config(mode="hierarchical", max_sub_questions=5))
    texts = [s["question_text"] for s in snap.pending["sub_questions"]]
    assert "When should each option be used (PostgreSQL, SQLite, Python)?" in texts
    assert any("SQLite lock its database file" in t for t in texts)
    assert any("sqlite3 module control transactions" in t for t in texts)


def test_thin_evidence_keeps_a_branch_searching_while_its_budget_allows():
    # two confident findings from one page: keep looking
    assert not branch_stop_decision(2, 4, 2, [0.9, 0.8], distinct_sources=1).stop
    assert branch_stop_decision(2, 4, 2, [0.9, 0.8], distinct_sources=2).stop
    assert branch_stop_decision(4, 4, 2, [0.9, 0.8], distinct_sources=1).stop  # the budget still ends it


def test_the_report_keeps_every_answered_branch_when_the_overview_names_only_one(tmp_path):
    # a small model's overview: one cited sentence and an invented limitations section
    overview = (
        "SQLite allows many concurrent readers but only one writer at a time [1].\n\n"
        "## Limitations\nPostgreSQL was rewritten in Rust in 2019 and nobody has checked it."
    )
    with serve(ScriptedLLM(script={"meta_synthesis": [overview]})) as (url, _):
        runner = _library_runner(tmp_path, url)
        snap = runner.start(
            "How does SQLite handle concurrent writers, and what does its write-ahead log change?",
            config(mode="hierarchical", auto_approve=True, search_backends=["library"]),
        )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    report = result.final_answer
    answered = [b for b in result.sub_questions if b.status == "completed" and b.findings]
    assert len(answered) >= 2
    for branch in answered:
        assert branch.question_text in report
        assert branch.findings[0].text[:60] in report
    assert "Rust" not in report
    # the count covers every branch answer in the report (the overview's one sentence repeats a branch
    # answer printed beside it, so it goes uncounted)
    assert result.synthesis.statements_checked >= sum(b.statements_checked for b in answered)


def test_a_flat_branch_keeps_searching_while_a_part_of_its_question_has_no_finding():
    question = (
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions, "
        "and which settings of Python's sqlite3 module control transactions?"
    )
    found = ["PostgreSQL offers Read Committed, Repeatable Read and Serializable isolation levels."]
    missing = uncovered_parts(question, found)
    assert [m[:19] for m in missing] == ["how does SQLite iso", "which settings of P"]
    decision = branch_stop_decision(2, 6, 2, [0.9, 0.9, 0.9], distinct_sources=2, uncovered=missing)
    assert not decision.stop and "SQLite isolate" in decision.reason
    found += ["SQLite isolates transactions by locking the database file.", "The sqlite3 module's autocommit setting"]
    assert uncovered_parts(question, found) == []
    assert branch_stop_decision(6, 6, 2, [0.9], distinct_sources=1, uncovered=missing).stop  # the budget ends it


def test_one_finding_that_names_every_part_answers_only_one_of_them():
    question = (
        "What transaction isolation levels does PostgreSQL offer, how does SQLite isolate transactions, "
        "and which settings of Python's sqlite3 module control transactions?"
    )
    # one sentence naming PostgreSQL, SQLite and the sqlite3 module: it cannot answer all three clauses
    found = ["PostgreSQL isolation levels differ from how SQLite and Python's sqlite3 module handle transactions."]
    assert len(uncovered_parts(question, found)) == 2
    found += ["SQLite isolates transactions by locking the database file."]
    assert len(uncovered_parts(question, found)) == 1
    found += ["The sqlite3 module's isolation_level setting controls when transactions begin."]
    assert uncovered_parts(question, found) == []


def test_a_comparison_is_not_done_while_one_of_its_options_has_no_finding():
    question = "Compare how PostgreSQL and SQLite handle concurrent writes and locking."
    only_sqlite = ["SQLite allows one writer at a time.", "In WAL mode SQLite readers do not block the writer."]
    assert uncovered_parts(question, only_sqlite) == ["PostgreSQL"]
    decision = branch_stop_decision(1, 6, 1, [0.9, 0.9], distinct_sources=2, uncovered=["PostgreSQL"])
    assert not decision.stop and "PostgreSQL" in decision.reason
    assert uncovered_parts(question, [*only_sqlite, "PostgreSQL uses MVCC, so writers lock only rows."]) == []


def test_the_head_that_frames_a_question_is_not_a_part_of_its_own():
    question = (
        "Compare full-text search in PostgreSQL and SQLite: how are documents indexed, "
        "how are queries written, and how are results ranked?"
    )
    answered = [
        "PostgreSQL documents are indexed as tsvector values.",
        "Queries are written with to_tsquery or MATCH.",
        "Results are ranked with ts_rank or bm25.",
    ]
    assert uncovered_parts(question, answered) == []
    assert uncovered_parts(question, answered[:2]) == ["how are results ranked"]


def test_a_question_naming_a_directive_is_not_done_until_a_finding_names_it():
    # two confident findings about HostnameLookups do not answer a question about KeepAliveTimeout
    question = "What is the default KeepAliveTimeout of the Apache HTTP Server?"
    found = [
        {"text": "", "quote": "Prior to Apache 1.3, HostnameLookups defaulted to On."},
        {"text": "", "quote": "In Apache 1.3 this setting defaults to Off."},
    ]
    missing = still_missing(question, finding_texts(found))
    assert missing == ["KeepAliveTimeout"]
    decision = branch_stop_decision(1, 11, 1, [0.7, 0.7], distinct_sources=2, uncovered=missing)
    assert not decision.stop and "KeepAliveTimeout" in decision.reason
    found.append({"text": "", "quote": "KeepAliveTimeout: Default: KeepAliveTimeout 5."})
    assert still_missing(question, finding_texts(found)) == []
