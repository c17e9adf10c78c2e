"""The workbench shows the quotes behind citations: citation tooltips and the sources' quotes on the
Report page, each finding's quote on the Run page; web text stays escaped, runs without quotes as before."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from research_core.output.quotes import quotes_by_source, result_findings
from research_core.runs.records import RunResult
from research_core.schemas import Finding, Source
from tests.test_export import make_result
from tests.test_export_quotes import HOSTILE_QUOTE, MEMO_AT, MEMO_QUOTE, REACT_AT, REACT_QUOTE, finding, with_quotes
from ui import report_view, sources_view, widgets

SOURCES = [
    Source(id="a", url="https://example.org/a", title="Alpha", backend="ddg"),
    Source(id="b", url="library://notes.md", title="Notes", backend="library"),
]
QUOTE = 'Alpha ships "v2" with `code` and <b>bold</b> claims.'


def quoting(fid: str, source_id: str, quote: str, location: str) -> Finding:
    """A finding citing `source_id` with `quote` at `location`."""
    return Finding(
        id=fid,
        sub_question_id="sq_001",
        text="A fact.",
        confidence=0.8,
        source_ids=[source_id],
        quote=quote,
        location=location,
    )


QUOTES = quotes_by_source(
    [
        quoting("f1", "a", QUOTE, "https://example.org/a#:~:text=Alpha%20ships"),
        quoting("f2", "b", "Notes say so plainly.", "javascript:alert(1)"),
        quoting("f3", "a", "", "https://example.org/a#:~:text=x"),
    ]
)


def quoted_result() -> RunResult:
    base = make_result()
    return with_quotes(base, {"sq_002": [finding(base, "f_003", 4, MEMO_QUOTE, MEMO_AT)]})


# ---- citation tooltips -----------------------------------------------------------------------------


def test_a_citation_tooltip_shows_the_title_then_the_quotes() -> None:
    md, _ = report_view.cited_markdown("Alpha ships [1]. Notes [2].", SOURCES, quotes=QUOTES)
    hover = "Alpha — “Alpha ships v2 with code and <b>bold</b> claims.”"  # nothing that ends a title
    assert md.startswith(f'Alpha ships [\\[1\\]](<https://example.org/a> "{hover}").')
    assert "Notes \\[2\\]." in md  # a library document is never a link, so it has no tooltip


def test_without_quotes_a_citation_tooltip_is_the_title_as_before() -> None:
    md, _ = report_view.cited_markdown("Fact [1].", SOURCES)
    assert md == 'Fact [\\[1\\]](<https://example.org/a> "Alpha").'
    assert report_view.cited_markdown("Fact [1].", SOURCES, quotes={})[0] == md


# ---- the sources' quotes on the Report page ----------------------------------------------------------


def test_the_sources_quotes_are_listed_under_each_source_escaped() -> None:
    md = sources_view.source_quotes_markdown(SOURCES, QUOTES)
    assert md == (
        "\\[1\\] [Alpha](<https://example.org/a>)\n\n"
        '> "Alpha ships "v2" with \\`code\\` and &lt;b&gt;bold&lt;/b&gt; claims." — '
        "[at the source](<https://example.org/a#:~:text=Alpha%20ships>)\n\n"
        "\\[2\\] Notes (library://notes.md)\n\n"
        '> "Notes say so plainly."'  # a javascript: location is dropped
    )
    assert sources_view.source_quotes_markdown(SOURCES, {}) == ""


def run_report(result) -> None:  # no annotation: AppTest runs the source alone
    """The report view of `result`, as the Report page draws it (run by AppTest)."""
    from ui import report_view

    report_view.report(result, key_prefix="t", compact=True)


def test_the_report_view_shows_the_quotes_and_tooltips() -> None:
    at = AppTest.from_function(run_report, args=(quoted_result(),), default_timeout=30).run()
    assert not at.exception
    (quotes,) = [e for e in at.expander if e.label.startswith("What the sources say")]
    assert quotes.label == "What the sources say: 3 quotes"
    shown = "\n".join(m.value for m in quotes.markdown)
    assert f'> "{REACT_QUOTE}" — [at the source](<{REACT_AT}>)' in shown
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in shown and "<script" not in shown
    answer = at.markdown[0].value
    assert f'[\\[1\\]](<https://react.dev/learn> "React – Learn — “{REACT_QUOTE}”")' in answer
    (vue,) = [e for e in at.expander if "How popular is Vue?" in e.label]
    hostile = " ".join(HOSTILE_QUOTE.replace('"', " ").split())
    assert f'[\\[3\\]](<https://vuejs.org/guide/> "Vue [guide] *intro* — “{hostile}”")' in vue.markdown[0].value


def test_a_report_without_quotes_has_no_quotes_expander() -> None:
    at = AppTest.from_function(run_report, args=(make_result(),), default_timeout=30).run()
    assert not at.exception
    assert not [e for e in at.expander if e.label.startswith("What the sources say")]
    assert "—" not in at.markdown[0].value  # tooltips are the titles alone


# ---- each finding's quote on the Run page --------------------------------------------------------------


def test_a_finding_shows_its_quote_under_it() -> None:
    sources = {"s1": Source(id="s1", title="T", url="https://example.org", backend="ddg")}
    found = Finding(
        id="f1",
        sub_question_id="sq_001",
        text="Alpha ships v2.",
        confidence=0.8,
        source_ids=["s1"],
        quote='It "ships" <script>x</script>',
        location="https://example.org/#:~:text=It",
    )
    md = widgets.findings_markdown([found], sources, {"s1": 1})
    assert md == (
        "- **0.80** · Alpha ships v2.  \n  [1] [T](<https://example.org>) · *snippet only*\n"
        '  > "It "ships" &lt;script&gt;x&lt;/script&gt;" — [at the source](<https://example.org/#:~:text=It>)'
    )
    before = widgets.findings_markdown([found.model_copy(update={"quote": ""})], sources, {"s1": 1})
    assert before == "- **0.80** · Alpha ships v2.  \n  [1] [T](<https://example.org>) · *snippet only*"


def test_the_findings_of_a_result_give_each_source_its_quotes() -> None:
    result = quoted_result()
    quotes = quotes_by_source(result_findings(result))
    assert {sid: [q.finding_id for q in qs] for sid, qs in quotes.items()} == {
        result.sources[0].id: ["f_001"],
        result.sources[2].id: ["f_002"],
        result.sources[3].id: ["f_003"],
    }
