"""The workbench's pure helpers: settings file, plan table, and the rendering of untrusted text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from research_core.configuration import RunConfig
from research_core.runs.rows import BranchRow
from research_core.schemas import CostEntry, Finding, Source
from ui import charts, plan_table, widgets
from ui.settings_store import AppSettings, assert_no_secrets, load_settings, mask_secret, save_settings, settings_path

ROWS = [
    {"order": 1, "id": "sq_001", "question_text": "A?", "priority": 1.0, "rationale": "", "parent_id": ""},
    {"order": 2, "id": "sq_002", "question_text": "B?", "priority": 0.5, "rationale": "", "parent_id": ""},
    {"order": 3, "id": "sq_003", "question_text": "C?", "priority": 0.5, "rationale": "", "parent_id": "sq_001"},
]


# ---- settings ------------------------------------------------------------------------------------


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ARBOR_LLM_MODEL", "ARBOR_SEARCH"):
        monkeypatch.delenv(name, raising=False)


def test_defaults_are_the_embedded_model_with_web_and_library(tmp_path: Path, clean_env: None) -> None:
    settings = load_settings(tmp_path / "arbor.db")
    assert settings.provider == "local" and settings.search_backends == ["ddg", "library"]
    assert settings.llm_settings().base_url is None


def test_environment_fills_defaults_and_saved_settings_win(
    tmp_path: Path, clean_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "arbor.db"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
    monkeypatch.setenv("ARBOR_SEARCH", "library")
    settings = load_settings(db)
    assert (settings.provider, settings.base_url, settings.search_backends) == (
        "openai",
        "http://127.0.0.1:11434/v1",
        ["library"],
    )
    save_settings(db, settings.model_copy(update={"model": "llama3.1", "search_backends": ["ddg"]}))
    again = load_settings(db)
    assert again.model == "llama3.1" and again.search_backends == ["ddg"]


def test_the_settings_file_never_holds_a_key(tmp_path: Path, clean_env: None) -> None:
    db = tmp_path / "arbor.db"
    path = save_settings(db, AppSettings(provider="openai", model="gpt-4o-mini"))
    assert path == settings_path(db)
    assert "key" not in path.read_text().lower()
    with pytest.raises(ValueError, match="secret field"):
        assert_no_secrets({"api_key": "x"})
    with pytest.raises(ValueError, match="looks like an API key"):
        save_settings(db, AppSettings(provider="openai", model="sk-proj-abcdef123456"))
    # a hand-edited file with a key in it is ignored, not used
    path.write_text(json.dumps({"model": "gpt-4o", "api_key": "sk-secret"}))
    assert not hasattr(load_settings(db), "api_key")


def test_an_invalid_settings_file_falls_back_to_defaults(tmp_path: Path, clean_env: None) -> None:
    db = tmp_path / "arbor.db"
    settings_path(db).write_text("{not json")
    assert load_settings(db).provider == "local"
    settings_path(db).write_text(json.dumps({"max_iterations": -3}))
    assert load_settings(db).max_iterations == 20


def test_base_urls_must_be_http() -> None:
    assert AppSettings(base_url=" http://localhost:11434/v1/ ").base_url == "http://localhost:11434/v1"
    with pytest.raises(ValueError, match="http"):
        AppSettings(base_url="javascript:alert(1)")


def test_keys_are_masked() -> None:
    assert mask_secret(None) == "not set"
    assert mask_secret("sk-proj-1234567890abcd") == "sk-…abcd"
    assert "test" not in mask_secret("sk-test")


# ---- plan table ---------------------------------------------------------------------------------------


def test_rows_round_trip_through_the_editor_frame() -> None:
    frame = plan_table.to_frame(ROWS)
    assert plan_table.rows_from_frame(frame) == ROWS


def test_check_numbers_the_tree_and_orders_by_the_order_column() -> None:
    rows = [dict(r) for r in ROWS]
    rows[1]["order"] = 0  # move B to the top
    check = plan_table.check_rows(rows, "Q")
    assert check.ok
    assert [sq.id for sq in check.plan.sub_questions] == ["sq_002", "sq_001", "sq_003"]
    assert check.numbers == {"sq_002": "1", "sq_001": "2", "sq_003": "2.1"}
    assert check.tree == ["sq_002", "sq_001", "sq_003"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"priority": None}, "the priority is empty"),
        ({"priority": -0.1}, "outside 0-1"),
        ({"question_text": ""}, "the question text is empty"),
        ({"parent_id": "sq_003"}, "cycle"),
    ],
)
def test_check_refuses_bad_rows(change: dict, message: str) -> None:
    rows = [dict(r) for r in ROWS]
    rows[0].update(change)
    check = plan_table.check_rows(rows, "Q")
    assert not check.ok and message in check.error


def test_new_rows_get_ids() -> None:
    rows = [*ROWS, {"order": None, "id": "", "question_text": "D?", "priority": 0.2, "rationale": "", "parent_id": ""}]
    check = plan_table.check_rows(rows, "Q")
    assert check.ok and check.plan.sub_questions[-1].id == "sq_004"


def test_estimate_follows_the_engine_budget() -> None:
    check = plan_table.check_rows(ROWS, "Q")
    est = plan_table.estimate(check.plan, RunConfig(), (0.15, 0.6), (0.15, 0.6))
    assert est.iterations == {"sq_001": 5, "sq_002": 4, "sq_003": 4}
    assert 0 < est.cost_low < est.cost_high


def test_add_children_goes_after_the_parents_subtree() -> None:
    children = [{"question_text": "A1?", "priority": 0.7}, {"question_text": "A2?"}]
    nested = [{**r, "order": 1.5} if r["id"] == "sq_003" else r for r in ROWS]  # sq_003 right under sq_001
    rows = plan_table.add_children(nested, "sq_001", children)
    assert [r["id"] for r in rows] == ["sq_001", "sq_003", "sq_001.1", "sq_001.2", "sq_002"]
    assert [r["order"] for r in rows] == [1, 2, 3, 4, 5]
    assert rows[2]["parent_id"] == "sq_001" and rows[3]["priority"] == 0.5
    again = plan_table.add_children(rows, "sq_001", [{"question_text": "A3?"}])
    assert "sq_001.3" in [r["id"] for r in again]
    with pytest.raises(ValueError, match="no sub-question"):
        plan_table.add_children(ROWS, "sq_404", [{"question_text": "X?"}])


# ---- untrusted text ------------------------------------------------------------------------------------------


def test_only_http_sources_become_links() -> None:
    assert widgets.source_link("Docs", "https://example.org/a b") == "[Docs](<https://example.org/a%20b>)"
    assert "](" not in widgets.source_link("x", "javascript:alert(1)")
    assert widgets.source_link("Notes", "library://notes.md") == "Notes (library://notes.md)"
    assert widgets.source_link("[click](https://evil)", "data:text/html,hi").startswith("\\[click\\]")


def test_findings_escape_web_text() -> None:
    finding = Finding(
        id="f1",
        sub_question_id="sq_001",
        text="<img src=x onerror=alert(1)> **bold**",
        confidence=0.8,
        source_ids=["s1"],
    )
    md = widgets.findings_markdown(
        [finding], {"s1": Source(id="s1", title="T", url="https://example.org", backend="ddg")}, {"s1": 1}
    )
    assert "<img" not in md and "\\*\\*bold\\*\\*" in md
    assert "[1] [T](<https://example.org>)" in md


def test_llm_markdown_is_cleaned_and_its_headings_demoted() -> None:
    md = widgets.clean_md("# Title\n<script>alert(1)</script>[x](javascript:alert(1))\n```\n# not a heading\n```")
    assert "<script" not in md and "javascript" not in md
    assert md.startswith("#### Title") and "\n# not a heading\n" in md


def test_tree_labels_are_escaped() -> None:
    row = BranchRow(id="sq_001", question_text="<a href='javascript:x'>click</a>", priority=0.5, status="completed")
    figure = charts.tree_figure("<b>Q</b>", [row])
    labels = " ".join(figure.data[0].labels)
    assert "<a " not in labels and "&lt;a href" in labels


def test_usage_by_branch_and_node() -> None:
    entries = [
        CostEntry(node="research_step", task="plan_queries", branch="sq_001", model="m", tokens_in=10, cost_usd=0.1),
        {"node": "meta_synthesis", "branch": None, "tokens_in": 5, "tokens_out": 5, "cost_usd": 0.2},
    ]
    by_branch = charts.usage_by(entries, "branch", {"sq_001": "1"})
    assert by_branch["1"]["tokens_in"] == 10 and by_branch["run"]["cost"] == 0.2
    assert set(charts.usage_by(entries, "node")) == {"research_step", "meta_synthesis"}


def test_amounts_and_durations() -> None:
    assert widgets.usd_amount(0.00071) == "0.0007" and widgets.usd_amount(2.5) == "2.50"
    assert widgets.format_cost(0) == "$0" and widgets.format_cost(0.0123) == "$0.012"
    assert widgets.format_duration(75) == "1 min 15 s"
    assert widgets.plural(1, "iteration") == "1 iteration"
