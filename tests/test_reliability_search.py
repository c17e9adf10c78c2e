"""Search faults: rate limits, an unreachable or hanging network, empty answers, floods of
results and megabytes of text. Each is bounded, handled, and reported in the warnings or log.

The web backend is the real WebSearch with a fake `ddgs` client (its `client_factory`), so
its retry, deadline and error classification run for real inside the engine.
"""

from __future__ import annotations

import logging
import sqlite3
import time

import pytest
from ddgs.exceptions import RatelimitException

from research_core.schemas import Source
from research_core.search.base import (
    MAX_RESULTS_PER_QUERY,
    MAX_SNIPPET_CHARS,
    MAX_TITLE_CHARS,
    MAX_URL_CHARS,
    SearchError,
)
from research_core.search.web import RATE_LIMIT_MESSAGE, WebSearch
from tests.conftest import config, make_runner
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.search import FailingSearch, FixtureSearch

QUESTION = "Compare React, Vue, and Angular for building web applications"

pytestmark = pytest.mark.timeout(90)


class FakeClient:
    """A stand-in for ddgs.DDGS: `behaviour(query, max_results)` returns results or raises."""

    def __init__(self, behaviour, calls: list[str]):
        self.behaviour = behaviour
        self.calls = calls

    def text(self, query: str, **kwargs):
        self.calls.append(query)
        return self.behaviour(query, kwargs.get("max_results", 5))


def web(behaviour, calls: list[str], **kwargs) -> WebSearch:
    return WebSearch(client_factory=lambda timeout: FakeClient(behaviour, calls), sleep=lambda s: None, **kwargs)


def cfg(**overrides):
    values = {"auto_approve": True, "mode": "hierarchical", "search_backends": ["ddg", "fixture"]}
    values.update(overrides)
    return config(**values)


def thread_bytes(db, run_id: str) -> int:
    conn = sqlite3.connect(str(db))
    try:
        a = conn.execute(
            "select coalesce(sum(length(checkpoint) + length(metadata)), 0) from checkpoints where thread_id = ?",
            [run_id],
        ).fetchone()[0]
        b = conn.execute("select coalesce(sum(length(value)), 0) from writes where thread_id = ?", [run_id]).fetchone()[
            0
        ]
    finally:
        conn.close()
    return a + b


def log_messages(snap, kind: str | None = None) -> list[str]:
    return [e.message for e in snap.log if kind is None or e.kind == kind]


@pytest.fixture
def llm():
    with serve(ScriptedLLM()) as (url, script):
        yield url, script


# ---- rate limits ----------------------------------------------------------------------


def test_rate_limited_web_search_is_retried_reported_and_dropped_for_the_branch(tmp_path, llm, caplog):
    caplog.set_level(logging.WARNING)
    calls: list[str] = []

    def limited(query, n):
        raise RatelimitException("https://duckduckgo.com 202 Ratelimit")

    runner = make_runner(tmp_path, llm[0], backends=[web(limited, calls, max_retries=2), FixtureSearch()])
    snap = runner.start(QUESTION, cfg(confidence_for_stop=1.0, findings_for_stop=50))  # 2+ iterations per branch
    assert snap.status == "completed", snap.error
    assert RATE_LIMIT_MESSAGE in log_messages(snap, "search_error")
    assert any("retry 2/2" in r.getMessage() for r in caplog.records)  # the backoff retries happened
    assert any("Dropped backend 'ddg'" in m for m in log_messages(snap, "source_choice"))
    assert snap.findings and all(s.backend == "fixture" for s in snap.sources)


def test_a_rate_limit_that_clears_is_invisible_to_the_run(tmp_path, llm):
    calls: list[str] = []

    def limited_once(query, n):
        if len(calls) == 1:
            raise RatelimitException("429 Too Many Requests")
        return [
            {
                "href": f"https://example.org/{i}",
                "title": f"Vue {i}",
                "body": "Vue is a reactive framework for web applications.",
            }
            for i in range(n)
        ]

    runner = make_runner(tmp_path, llm[0], backends=[web(limited_once, calls, max_retries=2)])
    snap = runner.start(QUESTION, cfg(search_backends=["ddg"]))
    assert snap.status == "completed", snap.error
    assert not log_messages(snap, "search_error")
    assert any(s.backend == "ddg" for s in snap.sources)


# ---- unreachable and hanging networks -------------------------------------------------


def test_unreachable_network_disables_web_search_once_for_the_run(tmp_path, llm):
    calls: list[str] = []

    def offline(query, n):
        raise ConnectionError("error sending request: dns error: failed to lookup address information")

    runner = make_runner(tmp_path, llm[0], backends=[web(offline, calls), FixtureSearch()])
    snap = runner.start(QUESTION, cfg())
    assert snap.status == "completed", snap.error
    assert len(calls) <= 2  # at most once per branch searching at that moment (parallel=2), not per query
    assert any("unreachable" in w and "disabled for this run" in w for w in snap.warnings)
    assert snap.findings


def test_a_hanging_web_search_is_abandoned_at_its_deadline(tmp_path, llm):
    calls: list[str] = []

    def hang(query, n):
        time.sleep(20)
        return []

    backend = web(hang, calls, timeout_s=0.2)  # deadline 1.4 s
    runner = make_runner(tmp_path, llm[0], backends=[backend, FixtureSearch()])
    started = time.monotonic()
    snap = runner.start(QUESTION, cfg())
    took = time.monotonic() - started
    # Waiting out each hanging search would take 20 s per search on each of the 2 parallel branches
    # (18 searches: 180 s). Abandoned at their deadlines they take about 18 s on quiet cores, and up to
    # twice that while the test suite's other workers share them.
    assert calls and took < 20 * len(calls) / 2 / 2, f"{took:.0f} s for {len(calls)} hanging searches"
    assert snap.status == "completed", snap.error
    assert any("no answer in time" in w for w in snap.warnings)


def test_only_backend_unreachable_the_run_still_ends_with_a_clear_report(tmp_path, llm):
    failing = FailingSearch("ddg")
    runner = make_runner(tmp_path, llm[0], backends=[failing])
    snap = runner.start(QUESTION, cfg(search_backends=["ddg"]))
    assert snap.status in ("completed", "completed_with_fallback"), snap.error
    assert failing.calls == 1
    assert not snap.findings
    assert any("unreachable" in w for w in snap.warnings)
    assert all("No findings were gathered" in b.synthesis for b in snap.branches)
    assert "No search backend is usable." in log_messages(snap, "search")


def test_a_backend_bug_is_contained_and_logged(tmp_path, llm, caplog):
    class Buggy:
        name = "buggy"

        def search(self, query, max_results):
            raise KeyError("title")

    runner = make_runner(tmp_path, llm[0], backends=[Buggy(), FixtureSearch()])
    snap = runner.start(QUESTION, cfg(search_backends=["buggy", "fixture"]))
    assert snap.status == "completed", snap.error
    assert any("buggy failed: KeyError" in m for m in log_messages(snap, "search_error"))
    assert any("search backend buggy failed" in r.getMessage() for r in caplog.records)


# ---- empty answers --------------------------------------------------------------------


def test_empty_results_are_reformulated_then_reported(tmp_path, llm):
    _, script = llm

    class Empty:
        name = "fixture"
        queries: list[str] = []

        def search(self, query, max_results):
            self.queries.append(query)
            return []

    empty = Empty()
    runner = make_runner(tmp_path, llm[0], backends=[empty])
    snap = runner.start(QUESTION, cfg(search_backends=["fixture"], max_iterations=12))
    assert snap.status in ("completed", "completed_with_fallback"), snap.error
    assert "No search results this iteration." in log_messages(snap)
    assert any("Reformulated queries after no results" in m for m in log_messages(snap, "retry"))
    assert script.count("extract_findings") == 0  # nothing to extract from
    assert all("No findings were gathered" in b.synthesis for b in snap.branches)


# ---- floods ---------------------------------------------------------------------------


class Flood:
    """Ignores max_results: `count` results of `snippet_chars` characters each."""

    name = "fixture"

    def __init__(self, count: int, snippet_chars: int = 200, title_chars: int = 40, url_chars: int = 0):
        self.count, self.snippet_chars, self.title_chars, self.url_chars = count, snippet_chars, title_chars, url_chars
        self.returned = 0

    def search(self, query, max_results):
        words = "React Vue Angular component framework "
        out = []
        for i in range(self.count):
            url = f"https://flood.example/{i}/" + "p" * self.url_chars
            title = (f"Result {i} " + words * self.title_chars)[: max(self.title_chars, 10)]
            snippet = (words * (self.snippet_chars // len(words) + 1))[: self.snippet_chars]
            out.append(Source.make(url, title, snippet, 1.0 - i / (self.count + 1), self.name))
        self.returned += len(out)
        return out


def test_ten_thousand_results_are_cut_to_the_bound_and_the_checkpoint_stays_small(tmp_path, llm):
    clean = make_runner(tmp_path / "clean", llm[0], backends=[FixtureSearch()])
    clean_snap = clean.start(QUESTION, cfg(search_backends=["fixture"]))
    clean_bytes = thread_bytes(clean.db_path, clean_snap.run_id)

    flood = Flood(10_000)
    runner = make_runner(tmp_path, llm[0], backends=[flood])
    snap = runner.start(QUESTION, cfg(search_backends=["fixture"], max_results_per_query=20))
    assert snap.status == "completed", snap.error
    assert flood.returned >= 10_000
    counts = [int(m.split(": ")[1].split()[0]) for m in log_messages(snap, "search")]
    assert counts and max(counts) <= MAX_RESULTS_PER_QUERY
    assert len({s.id for s in snap.sources}) <= 8 * len(snap.branches) * 5  # at most the prompt's 8 per iteration
    size = thread_bytes(runner.db_path, snap.run_id)
    assert size < 3 * clean_bytes + 500_000, (size, clean_bytes)


def test_five_megabytes_of_text_are_clipped_everywhere(tmp_path, llm):
    _, script = llm
    five_mb = 5 * 1024 * 1024
    flood = Flood(3, snippet_chars=five_mb, title_chars=1024 * 1024, url_chars=1024 * 1024)
    runner = make_runner(tmp_path, llm[0], backends=[flood])
    snap = runner.start(QUESTION, cfg(search_backends=["fixture"], max_iterations=8))
    assert snap.status == "completed", snap.error
    assert snap.sources
    for s in snap.sources:
        assert len(s.snippet) <= MAX_SNIPPET_CHARS
        assert len(s.title) <= MAX_TITLE_CHARS
        assert len(s.url) <= MAX_URL_CHARS
    biggest_prompt = max(len(str(body["messages"])) for _, body in script.calls)
    assert biggest_prompt < 60_000
    assert thread_bytes(runner.db_path, snap.run_id) < 5_000_000
    result = runner.result(snap.run_id)
    assert len(result.model_dump_json()) < 1_000_000


def test_web_backend_floods_are_bounded_before_the_engine(tmp_path, llm):
    calls: list[str] = []

    def flood(query, n):
        return [{"href": f"https://x.example/{i}", "title": "t" * 10_000, "body": "b" * 100_000} for i in range(10_000)]

    backend = web(flood, calls)
    results = backend.search("react", 50)
    assert len(results) == MAX_RESULTS_PER_QUERY
    assert all(len(r.snippet) <= MAX_SNIPPET_CHARS and len(r.title) <= MAX_TITLE_CHARS for r in results)


def test_search_error_carries_a_user_message():
    err = SearchError("ddg", "Web search is unreachable.", unreachable=True)
    assert err.user_message == "Web search is unreachable." and err.unreachable and not err.retryable
