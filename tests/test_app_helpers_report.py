"""Pure helpers of the report view: citations become links to their sources, safely."""

from __future__ import annotations

from research_core.schemas import Source
from ui import charts, report_view

SOURCES = [
    Source(id="a", url="https://example.org/a b", title='A "quoted" <b>title</b>', backend="ddg"),
    Source(id="b", url="library://notes.md", title="Notes", backend="library"),
    Source(id="c", url="javascript:alert(1)", title="Evil", backend="ddg"),
]


def cited(text: str) -> tuple[str, int]:
    return report_view.cited_markdown(text, SOURCES)


def test_citations_link_to_http_sources_only() -> None:
    md, removed = cited("Fact [1]. Local [2]. Bad [3].")
    assert md.startswith('Fact [\\[1\\]](<https://example.org/a%20b> "A quoted <b>title</b>")')
    assert "Local \\[2\\]." in md and "Bad \\[3\\]." in md  # shown, never clickable
    assert "javascript" not in md and removed == 0


def test_missing_citations_are_dropped_like_the_exports() -> None:
    md, removed = cited("Made up [99]. Mixed [1, 42].")
    assert "99" not in md and "42" not in md and removed == 2
    assert md.startswith("Made up. Mixed [\\[1\\]](<https://example.org/a%20b>")


def test_code_and_existing_links_are_left_alone() -> None:
    md, _ = cited("Inline `a[1]` and [see [1]](https://example.org/x).\n\n```\nrow[1] = 2\n```\nafter [1]")
    assert "`a[1]`" in md and "[see [1]](https://example.org/x)" in md
    assert "\nrow[1] = 2\n" in md
    assert md.endswith('after [\\[1\\]](<https://example.org/a%20b> "A quoted <b>title</b>")')


def test_the_legend_uses_the_tree_colours() -> None:
    legend = charts.legend_markdown()
    for colour in charts.BRANCH_COLORS.values():
        assert f'background="{colour}"' in legend
    assert charts.BRANCH_COLORS["pending"] != charts.BRANCH_COLORS["skipped"]
