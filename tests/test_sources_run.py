"""Whole runs through the local web: SearXNG search -> page fetch -> passages -> findings -> grounded report.

The scripted LLM answers over real HTTP; the search backend is SearxngSearch against the local
web on 127.0.0.1, whose pages are the recorded fixtures; the run database is a real SQLite file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from research_core.output.export import to_html, to_markdown
from research_core.runs.runner import Runner
from research_core.search.searxng import SearxngSearch
from tests.conftest import config, make_runner
from tests.fakes.llm_server import Fault
from tests.fakes.local_web import LocalWeb, serve_local_web

QUESTION = "Compare SQLite and PostgreSQL write concurrency for a small web app"


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web() as served:
        yield served


def web_runner(tmp_path, url: str, web: LocalWeb) -> Runner:
    return make_runner(tmp_path, url, backends=[SearxngSearch(web.base_url)])


def web_config(**overrides):
    values = {
        "search_backends": ["searxng"],
        "fetch_private_addresses": True,  # the local web is on 127.0.0.1
        "auto_approve": True,
        "mode": "hierarchical",
        "parallel": 1,
    }
    values.update(overrides)
    return config(**values)


def page_hits(web: LocalWeb) -> dict[str, int]:
    return {path: n for path, n in web.hits.items() if path != "search"}


def test_findings_rest_on_the_passages_of_the_pages(tmp_path, scripted, web: LocalWeb) -> None:
    url, script = scripted
    runner = web_runner(tmp_path, url, web)
    snap = runner.start(QUESTION, web_config())
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)

    assert web.queries, "the run searched through SearXNG"
    by_id = {s.id: s for s in result.sources}
    cited = {sid for sq in result.sub_questions for f in sq.findings for sid in f.source_ids}
    assert cited and all(by_id[sid].url.startswith(web.base_url) for sid in cited)  # findings cite the pages
    read = [by_id[sid] for sid in cited if by_id[sid].read == "page"]
    assert read, [by_id[sid].read_note for sid in cited]

    # the extraction prompt carried each read page's passages, not the search engine's teaser
    prompts = "\n".join(body["messages"][-1]["content"] for task, body in script.calls if task == "extract_findings")
    quotes = {sid: f.quote for sq in result.sub_questions for f in sq.findings for sid in f.source_ids}
    for source in read:
        # the quote is a sentence the prompt showed, taken from the page's passage
        assert quotes[source.id] and quotes[source.id] in prompts
        assert " ".join(quotes[source.id].split()) in " ".join(source.snippet.split())
        assert source.read_note.startswith("page read: passage")

    for sq in result.sub_questions:
        assert sq.pages_read > 0, sq.id
    assert any(e.kind == "passages" and e.reasoning for e in result.log)
    assert any(e.kind == "pages" and e.message.startswith("Pages read:") for e in result.log)
    assert max(page_hits(web).values()) == 1  # a page met by several branches is fetched once

    report = to_markdown(result)
    assert "page read" in report  # the report says how each source was used


def test_snippets_only_when_reading_is_off(tmp_path, scripted, web: LocalWeb) -> None:
    url, _ = scripted
    runner = web_runner(tmp_path, url, web)
    snap = runner.start(QUESTION, web_config(read_pages=False))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    assert result.sources and all(s.read == "snippet" for s in result.sources)
    assert page_hits(web) == {}
    assert all(sq.pages_read == 0 for sq in result.sub_questions)
    assert "snippet only" in to_markdown(result)


def test_a_resumed_run_and_a_branch_rerun_fetch_no_page_again(tmp_path, scripted, web: LocalWeb) -> None:
    url, script = scripted
    # the first extraction fails hard (after its pages were read): the run stops and is resumed
    script.script["extract_findings"] = [Fault(status=400, body='{"error": {"message": "scripted bad request"}}')]
    runner = web_runner(tmp_path, url, web)
    snap = runner.start(QUESTION, web_config())
    assert snap.status == "failed", snap.status
    fetched = page_hits(web)
    assert fetched, "pages were read before the failure"

    snap = runner.resume(snap.run_id)
    assert snap.status == "completed", snap.error
    after_resume = page_hits(web)
    assert all(after_resume[path] == 1 for path in fetched)  # the re-run step read them from the cache

    rerun = runner.rerun_branch(snap.run_id, "sq_001")
    assert rerun.status == "completed", rerun.error
    assert page_hits(web) == after_resume  # the branch re-run fetched nothing either
    log = runner.result(rerun.run_id).log
    assert any("(from the page cache)" in e.message for e in log if e.kind == "passages")


def test_a_page_that_injects_instructions_stays_data(tmp_path, scripted, web: LocalWeb) -> None:
    url, _ = scripted
    runner = web_runner(tmp_path, url, web)
    question = "How do I improve SQLite write performance with transactions?"
    snap = runner.start(question, web_config(mode="flat"))
    assert snap.status == "completed", snap.error
    result = runner.result(snap.run_id)
    injected = [s for s in result.sources if s.url.endswith("blog/injection.html")]
    assert injected and injected[0].read == "page"
    assert "IGNORE ALL PREVIOUS INSTRUCTIONS" in injected[0].snippet or "onerror" in injected[0].snippet

    markdown, html = to_markdown(result), to_html(result)
    for exported in (markdown, html):
        assert "&lt;img src=x onerror=" in exported and "&lt;script&gt;steal()" in exported  # shown as text
    for exported in (markdown, html):
        assert not re.search(r"<\s*(script|img|iframe)\b", exported, re.IGNORECASE)
        assert "sk-test" not in exported
    assert not re.search(r"(?<!\\)\]\(\s*javascript:", markdown, re.IGNORECASE)  # no clickable link
    assert not re.search(r"href\s*=\s*[\"']?\s*javascript:", html, re.IGNORECASE)
