"""A whole run where every branch asks to drill down: drill-downs never starve an approved branch.

The rule itself (`coordination/caps.py: drill_down_room`) has its unit test in test_drill_down_room.py;
this run proves the wiring: auto mode, the library backend, the default budget of 20 iterations.
"""

from __future__ import annotations

import json

from research_core.configuration import RunConfig
from research_core.search.library import DocumentLibrary
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve

QUESTION = "Compare SQLite, PostgreSQL and MySQL for small web apps"
DOCUMENTS = {
    "sqlite.md": "# SQLite for web apps\n\nSQLite is an embedded database stored in one file. "
    "With write-ahead logging, readers continue while one writer commits. Backups are a file copy.",
    "postgres.md": "# PostgreSQL for web apps\n\nPostgreSQL is a client-server database with MVCC. "
    "Many connections write concurrently without blocking readers. It needs a server process.",
    "mysql.md": "# MySQL for web apps\n\nMySQL is a client-server database with the InnoDB engine. "
    "InnoDB uses row-level locking for concurrent writes. Managed MySQL hosting is common.",
}
PLAN = {
    "strategy": "multi-faceted",
    "reasoning": "scripted split",
    "sub_questions": [
        {"question": "How does SQLite handle writes in small web apps?", "priority": 0.9, "rationale": "First."},
        {"question": "How does PostgreSQL handle writes in small web apps?", "priority": 0.8, "rationale": "Two."},
        {"question": "How does MySQL handle writes in small web apps?", "priority": 0.7, "rationale": "Three."},
    ],
}
SHALLOW = json.dumps({"depth": "superficial", "reasoning": "only generic statements", "drill_into": []})


def test_drill_downs_leave_the_lowest_priority_approved_branch_its_research(tmp_path) -> None:
    library = DocumentLibrary(tmp_path / "arbor.db")
    for name, text in DOCUMENTS.items():
        library.add_text(name, text, kind="md")
    script = ScriptedLLM(script={"decompose": json.dumps(PLAN), "evaluate_depth": SHALLOW})
    with serve(script) as (url, _):
        runner = make_runner(tmp_path, url, backends=[library])
        snap = runner.start(
            QUESTION,
            config(
                mode="auto",
                auto_approve=True,
                search_backends=["library"],
                max_iterations=RunConfig().max_iterations,
            ),
        )
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    top = [sq for sq in result.sub_questions if not sq.parent_id]
    assert sorted(sq.priority for sq in top) == [0.7, 0.8, 0.9]
    assert any(sq.parent_id for sq in result.sub_questions), "no branch drilled down"
    last = next(sq for sq in top if sq.priority == 0.7)
    assert last.status == "completed", (last.status, last.stop_reason)
    assert last.iteration_count >= RunConfig().sub_question_min_iterations
    assert not any("skipped" in e.message for e in result.log if e.branch == last.id or last.id in e.message)
