"""The engine's assembly of a hierarchical report around the model's overview."""

from __future__ import annotations

from research_core.synthesis.report import assemble_report, branch_section, drop_sections, limitations, split_lead

OVERVIEW = (
    "SQLite serialises writers [1].\n\n"
    "## How the parts fit together\nBoth use locks [1][2].\n\n"
    "## Caveats\nThe moon is cheese.\n\n"
    "## Conclusion\nChoose by workload [2]."
)


def test_the_lead_is_the_text_before_the_first_heading():
    lead, rest = split_lead(OVERVIEW)
    assert lead == "SQLite serialises writers [1]."
    assert rest.startswith("## How the parts fit together")


def test_sections_about_caveats_limitations_and_sources_are_left_out():
    out = drop_sections(OVERVIEW + "\n\n### Sources\n[1] a page")
    assert "moon" not in out and "[1] a page" not in out
    assert "## Conclusion\nChoose by workload [2]." in out


def test_a_child_branch_gets_a_deeper_heading():
    assert branch_section("2", "Q?", "A [1].").startswith("## 2 Q?\n\n")
    assert branch_section("2.1", "Child?", "A.").startswith("### 2.1 Child?")


def test_limitations_list_every_gap_and_nothing_when_there_is_none():
    assert limitations([]) == ""
    text = limitations(["Pricing (not researched: budget spent)", "  "])
    assert text == "## Limitations\n\n- Not covered: Pricing (not researched: budget spent)"


def test_the_report_puts_branch_answers_between_the_lead_and_the_conclusion():
    report = assemble_report(OVERVIEW, ["## 1 A?\n\nAnswer A [1].", "## 2 B?\n\nAnswer B [2]."], ["licensing"])
    order = [report.index(s) for s in ("SQLite serialises", "## 1 A?", "## 2 B?", "## Conclusion", "Not covered")]
    assert order == sorted(order)
    assert "moon" not in report


def test_without_an_overview_the_report_is_the_branch_answers():
    assert assemble_report("", ["## 1 A?\n\nAnswer A."], []) == "## 1 A?\n\nAnswer A."


def test_an_overview_that_opens_with_an_overview_heading_gives_its_body_as_the_lead():
    lead, rest = split_lead("### Overview\nBoth lock [1].\n\n### Conclusion\nPick one [2].")
    assert lead == "Both lock [1]."
    assert rest == "### Conclusion\nPick one [2]."
    report = assemble_report("### Overview\nBoth lock [1].\n\n### Conclusion\nPick one [2].", ["## 1 A?\n\nA."], [])
    assert report.startswith("Both lock [1].\n\n## 1 A?")
    assert "\n## Conclusion\nPick one [2]." in report


def test_an_overview_that_copies_the_branch_sections_does_not_print_them_twice() -> None:
    """The small model copied each sub-answer, heading and all, into its overview; the report holds
    each branch section once, and the overview's own sections stay."""
    sections = [
        "## 1 How are documents indexed in PostgreSQL and SQLite?\n\nSQLite uses FTS5 [1].",
        "## 2 How are results ranked?\n\nPostgreSQL ranks with ts_rank [2].",
    ]
    overview = (
        "Both index text [1] [2].\n\n"
        "## 1 How are documents indexed in PostgreSQL and SQLite?\n\nSQLite uses FTS5 [1].\n\n"
        "## How are results ranked\n\nPostgreSQL ranks with ts_rank [2].\n\n"
        "## How the parts fit together\n\nIndexing decides ranking [1] [2].\n\n"
        "## Conclusion\n\nBoth work [1]."
    )
    report = assemble_report(overview, sections, [])
    assert report.count("SQLite uses FTS5") == 1 and report.count("ts_rank") == 1
    assert report.startswith("Both index text [1] [2].")
    assert "## How the parts fit together" in report and report.rstrip().endswith("Both work [1].")
