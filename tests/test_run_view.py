"""What the Run page shows of a snapshot (ui/run_view.py): its records redacted, still records."""

from __future__ import annotations

from research_core.runs.rows import BranchRow
from research_core.runs.snapshot import RunSnapshot
from research_core.schemas import CostTotals, Finding, LogEntry, Source
from ui.run_view import progress_values, shown_snapshot

KEY = "sk-abcdefghijklmnopqrstuvwxyz123456"


def snapshot() -> RunSnapshot:
    found = Finding(id="f1", sub_question_id="sq_001", text=f"Use {KEY}.", confidence=0.8, source_ids=["s1"])
    return RunSnapshot(
        run_id="r1",
        question=f"Why {KEY}?",
        status="running",
        mode="hierarchical",
        pending=None,
        branches=[
            BranchRow(
                id="sq_001", question_text="Q?", priority=0.5, synthesis=f"Key {KEY}.", pages_read=2, findings=[found]
            )
        ],
        findings=[found],
        sources=[Source(id="s1", url="https://example.org", title=f"Title {KEY}", backend="ddg")],
        costs=CostTotals(
            total_usd=0, tokens_in=0, tokens_out=0, llm_calls=0, by_node={}, by_branch={}, by_model={}, entries=[]
        ),
        log=[LogEntry(node="research_step", message=f"Saw {KEY}")],
        warnings=[],
        final_answer=None,
        error=None,
        config={},
    )


def test_the_shown_snapshot_redacts_key_like_text_and_keeps_its_records():
    shown = shown_snapshot(snapshot())
    (row,) = shown.branches
    assert isinstance(row, BranchRow) and isinstance(row.findings[0], Finding)
    assert row.synthesis == "Key [redacted]." and row.findings[0].text == "Use [redacted]."
    assert shown.findings[0].text == "Use [redacted]." and shown.question == "Why [redacted]?"
    assert shown.sources[0].title == "Title [redacted]" and isinstance(shown.sources[0], Source)
    assert shown.log[0].message == "Saw [redacted]" and isinstance(shown.log[0], LogEntry)


def test_progress_values_count_from_the_rows():
    values = dict(progress_values(snapshot()))
    assert values["Branches done"] == "0 / 1" and values["Findings"] == "1" and values["Sources"] == "1"
    assert values["Pages read"] == "2 / 2"
