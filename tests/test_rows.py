"""Branch rows as the pages, the CLI and the exports read them (research_core/runs/rows.py): written
strictly, read back tolerantly, and a result stored by an older Arbor still opens, renders and exports."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from research_core.output.export import to_html, to_json, to_markdown
from research_core.runs.records import RunResult
from research_core.runs.rows import STORED, BranchRow, branch_rows, findings_of
from research_core.runs.store import RunStore
from research_core.schemas import Finding, SubQuestion
from tests.test_app_pages import app, no_exception, open_page
from tests.test_export import make_result
from tests.test_export_keys import ROW


def finding(fid: str, branch: str, **fields) -> Finding:
    return Finding(id=fid, sub_question_id=branch, text=f"Fact {fid}.", confidence=0.7, **fields)


# ---- written strictly ----------------------------------------------------------------------------


def test_a_misspelled_field_is_refused_where_a_row_is_written():
    with pytest.raises(ValidationError, match="statsu"):
        BranchRow(id="sq_001", question_text="Q?", priority=0.5, statsu="completed")
    row = BranchRow(id="sq_001", question_text="Q?", priority=0.5)
    with pytest.raises(ValueError, match="statsu"):
        row.statsu = "completed"  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        _ = row.statsu  # type: ignore[attr-defined]


def test_a_misspelled_field_is_refused_where_a_finding_is_written():
    with pytest.raises(ValidationError, match="qoute"):
        finding("f1", "sq_001", qoute="The quote.")
    with pytest.raises(ValidationError, match="qoute"):
        BranchRow.model_validate(
            {
                "id": "sq_001",
                "question_text": "Q?",
                "priority": 0.5,
                "findings": [{**finding("f1", "sq_001").model_dump(), "qoute": "x"}],
            }
        )


def test_rows_come_in_the_given_order_each_with_its_own_findings_in_order():
    branches = {b: SubQuestion(id=b, question_text=f"Question {b}?", priority=0.5) for b in ("a", "b", "c")}
    found = [finding("f1", "b"), finding("f2", "a"), finding("f3", "b"), finding("f4", "gone")]
    rows = branch_rows(branches, ["b", "a", "c"], found)
    assert [r.id for r in rows] == ["b", "a", "c"]
    assert [[f.id for f in r.findings] for r in rows] == [["f1", "f3"], ["f2"], []]
    assert rows[0].question_text == "Question b?" and isinstance(rows[0], SubQuestion)


# ---- read back tolerantly ------------------------------------------------------------------------


# A branch row as an older Arbor stored it: no reading, statement or passage counts, no kind, findings
# without quotes, and a key this version no longer knows.
OLD_FINDING = {"id": "f_old", "sub_question_id": "sq_001", "text": "React leads usage.", "confidence": 0.7}
OLD_ROW = {
    "id": "sq_001",
    "question_text": "How popular is React?",
    "priority": 0.9,
    "status": "completed",
    "allocated_iterations": 3,
    "iteration_count": 2,
    "synthesis": "React leads usage surveys [1].",
    "confidence": 0.8,
    "retired_note": "a field of another version",
    "findings": [OLD_FINDING | {"source_ids": []}, "not a finding"],
}


def test_a_stored_row_of_an_older_arbor_reads_with_defaults_and_drops_what_it_does_not_know():
    row = BranchRow.model_validate(OLD_ROW, context=STORED)
    assert (row.pages_read, row.statements_checked, row.kind, row.shown_passages) == (0, 0, "question", [])
    assert [f.id for f in row.findings] == ["f_old"] and row.findings[0].quote == ""
    assert "retired_note" not in row.model_dump()
    with pytest.raises(ValidationError):
        BranchRow.model_validate(OLD_ROW)  # written by code, the same row is refused


def test_findings_of_a_state_are_records_read_as_stored_ones_are():
    values = {"findings": [OLD_FINDING | {"retired": 1}, None]}
    assert findings_of(values) == [Finding(**OLD_FINDING)]
    assert findings_of({}) == []


def stored_old_result(db) -> str:
    """A finished run in the store whose result an older Arbor wrote: dict rows lacking newer fields."""
    data = make_result().model_dump(mode="json")
    source = data["sources"][0]["id"]
    old = dict(OLD_ROW, findings=[OLD_FINDING | {"source_ids": [source]}])
    child = {"id": "sq_001.1", "question_text": "Is React used in enterprise?", "priority": 0.5, "parent_id": "sq_001"}
    data["sub_questions"] = [old, child]
    store = RunStore(db)
    store.create("old-run", data["question"], {"mode": "hierarchical"})
    store.update("old-run", status="completed", mode="hierarchical", result_json=json.dumps(data))
    store.close()
    return "old-run"


def test_an_older_stored_result_opens_and_exports(tmp_path):
    db = tmp_path / "arbor.db"
    run_id = stored_old_result(db)
    result = RunStore(db).result(run_id)
    assert isinstance(result, RunResult) and [r.id for r in result.sub_questions] == ["sq_001", "sq_001.1"]
    md = to_markdown(result)
    assert "### 1 How popular is React?" in md and "#### 1.1 Is React used in enterprise?" in md
    assert "- React leads usage. (confidence 0.70) [1]" in md
    assert "How popular is React?" in to_html(result)
    data = json.loads(to_json(result))
    assert [list(row) for row in data["sub_questions"]] == [ROW, ROW]  # today's keys, filled with defaults


def test_an_older_stored_result_renders_on_the_report_and_history_pages(env: dict):
    run_id = stored_old_result(env["db"])
    at = open_page(app(run_id), "app_pages/report.py")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert any("How popular is React?" in e.label for e in at.expander)
    at = open_page(app(), "app_pages/history.py")
    at.selectbox(key="history_selected").set_value(run_id).run()
    no_exception(at)
    assert at.selectbox(key=f"history_rerun_branch_{run_id}").options == [
        "1 · How popular is React?",
        "1.1 · Is React used in enterprise?",
    ]
