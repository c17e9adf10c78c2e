"""research_core.sources.reader: web sources get their page's passages, every failure keeps the snippet and says why."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from research_core.configuration import build_run_config
from research_core.schemas import Source, SubQuestion
from research_core.services import Services
from research_core.sources.cache import PageCache
from research_core.sources.fetch import FetchPolicy, PageFetcher
from research_core.sources.reader import MAX_PER_HOST, ReadStats, fetch_pages, read_sources
from tests.fakes.local_web import LocalWeb, Route, serve_local_web

QUESTION = "Do readers block writers when SQLite uses write-ahead logging?"


@pytest.fixture
def web() -> Iterator[LocalWeb]:
    with serve_local_web() as served:
        yield served


def services(cache: PageCache | None = None) -> Services:
    # the reader needs no LLM
    return Services(llm=None, backends=[], config=build_run_config(), page_cache=cache)  # type: ignore[arg-type]


def source(url: str, snippet: str = "a search teaser", backend: str = "searxng", title: str = "") -> Source:
    return Source.make(url, title or url, snippet, 0.9, backend, sub_question_id="sq_001")


def allowed(**overrides):
    return build_run_config("general", fetch_private_addresses=True, **overrides)


def test_web_sources_get_the_passages_that_answer_the_question(web: LocalWeb) -> None:
    wal = source(web.url("sqlite/wal.html"), title="")
    library = source("library://notes.md", "a library passage", backend="library")
    out, log, stats = read_sources(services(), QUESTION, [wal, library], allowed(), max_chars=350)

    page, lib = out
    assert page.read == "page" and page.read_note.startswith("page read: passage")
    assert "readers do not block writers" in page.snippet and "search teaser" not in page.snippet
    assert len(page.snippet) <= 350
    assert page.id == wal.id and page.url == wal.url and page.sub_question_id == "sq_001"
    assert lib == library  # library documents pass through untouched
    assert stats == ReadStats(read=1, failed=0, from_cache=0, fetched=1, reasons={}, seconds=stats.seconds)
    kinds = [e["kind"] for e in log]
    assert kinds == ["passages", "pages"]
    assert "readers do not block writers" in log[0]["reasoning"]  # the log records which passages were chosen
    assert log[1]["message"].startswith("Pages read: 1 of 1")


def test_the_page_title_replaces_a_missing_title(web: LocalWeb) -> None:
    url = web.url("sqlite/wal.html")
    out, _, _ = read_sources(services(), QUESTION, [Source.make(url, url, "", 1.0, "ddg")], allowed())
    assert out[0].title == "Write-Ahead Logging"


def test_every_failure_keeps_the_snippet_and_is_reported(web: LocalWeb) -> None:
    web.route("slow.html", Route(body=b"<html><p>late</p></html>", delay_s=3))
    web.route("huge.html", Route(size=6 * 1024 * 1024))
    web.route("image.png", Route(body=b"\x89PNG\r\n\x1a\n" + b"\0" * 32, content_type="image/png"))
    cases = {
        "slow.html": "timeout",
        "missing.html": "http_status",
        "huge.html": "too_big",
        "image.png": "not_html_or_pdf",
        "blog/consent-wall.html": "empty",
        "postgres/connections.html": "no_match",
    }
    sources = [source(web.url(path), snippet=f"teaser of {path}") for path in cases]
    fetcher = PageFetcher(FetchPolicy(allow_private=True, read_timeout_s=0.5))
    started = time.monotonic()
    out, log, stats = read_sources(services(), QUESTION, sources, allowed(), fetcher=fetcher)
    assert time.monotonic() - started < 5

    for got, (path, _reason) in zip(out, cases.items(), strict=True):
        assert got.read == "snippet" and got.snippet == f"teaser of {path}", path
        assert got.read_note.startswith("snippet only: "), got.read_note
    assert stats.read == 0 and stats.failed == len(cases)
    assert stats.reasons == {reason: 1 for reason in cases.values()}
    not_read = [e for e in log if e["kind"] == "page_not_read"]
    assert len(not_read) == len(cases) and all(e["message"].startswith("Kept the snippet of ") for e in not_read)
    assert "HTTP 404" in " ".join(e["message"] for e in not_read)
    assert "too slow 1" in log[-1]["message"] and "HTTP error 1" in log[-1]["message"]


def test_private_addresses_are_refused_unless_the_run_allows_them(web: LocalWeb) -> None:
    url = web.url("sqlite/wal.html")
    out, _log, stats = read_sources(services(), QUESTION, [source(url)], build_run_config("general"))
    assert out[0].read == "snippet" and "loopback" in out[0].read_note
    assert stats.reasons == {"refused_address": 1} and web.fetches("sqlite/wal.html") == 0
    # redirects to private addresses: tests/test_sources_fetch.py (through a mock transport, never sent)


def test_reading_can_be_turned_off(web: LocalWeb) -> None:
    wal = source(web.url("sqlite/wal.html"))
    out, log, stats = read_sources(services(), QUESTION, [wal], allowed(read_pages=False))
    assert out[0].snippet == wal.snippet and out[0].read == "snippet" and "reading pages is off" in out[0].read_note
    assert log == [] and stats == ReadStats() and web.fetches("sqlite/wal.html") == 0


def test_the_page_cache_answers_a_second_read(web: LocalWeb, tmp_path: Path) -> None:
    cache = PageCache(tmp_path / "arbor.db")
    sources = [source(web.url("sqlite/wal.html")), source(web.url("missing.html")), source(web.url("slow.html"))]
    web.route("slow.html", Route(status=503))  # a passing failure: not cached
    first, _, stats = read_sources(services(cache), QUESTION, sources, allowed())
    assert (stats.fetched, stats.from_cache) == (3, 0)

    again, log, stats = read_sources(services(PageCache(tmp_path / "arbor.db")), QUESTION, sources, allowed())
    assert (stats.fetched, stats.from_cache) == (1, 2)
    assert web.fetches("sqlite/wal.html") == 1 and web.fetches("missing.html") == 1 and web.fetches("slow.html") == 2
    assert again[0].snippet == first[0].snippet and again[0].read == "page"
    assert "(from the page cache)" in log[0]["message"]


def test_fetches_run_concurrently_with_a_per_host_limit(web: LocalWeb) -> None:
    for n in range(6):
        web.route(f"p{n}.html", Route(body=b"<html><body><p>" + b"words " * 50 + b"</p></body></html>", delay_s=0.4))
    urls = [web.url(f"p{n}.html") for n in range(6)]
    started = time.monotonic()
    results = fetch_pages(PageFetcher(FetchPolicy(allow_private=True)), urls)
    elapsed = time.monotonic() - started
    assert all(page.ok for page, _ in results.values())
    assert web.peak_in_flight == MAX_PER_HOST  # one host: never more than the limit at once
    assert elapsed < 6 * 0.4  # but not one after another


def test_the_overall_deadline_ends_reading(web: LocalWeb) -> None:
    web.route("stuck.html", Route(body=b"<html></html>", delay_s=3))
    started = time.monotonic()
    results = fetch_pages(PageFetcher(FetchPolicy(allow_private=True)), [web.url("stuck.html")], deadline_s=0.5)
    assert time.monotonic() - started < 1.5
    page, keep = results[web.url("stuck.html")]
    # Whichever ends first, the fetch's own deadline or the wait for it, the page is a timeout.
    assert page.reason == "timeout"
    assert not page.ok and not keep


def test_branch_counts_add_up() -> None:
    branch = SubQuestion(id="sq_001", question_text="Q?", priority=0.5, pages_read=2, pages_not_read={"timeout": 1})
    update = ReadStats(read=1, failed=2, reasons={"timeout": 1, "too_big": 1}).branch_update(branch)
    assert update == {"pages_read": 3, "pages_failed": 2, "pages_not_read": {"timeout": 2, "too_big": 1}}


def test_parallel_branches_fetch_a_shared_page_once(web: LocalWeb, tmp_path: Path) -> None:
    web.route(
        "shared.html", Route(body=(b"<html><body><p>" + b"shared words " * 40 + b"</p></body></html>"), delay_s=0.5)
    )
    cache = PageCache(tmp_path / "arbor.db")
    url = web.url("shared.html")
    results: list[tuple] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(fetch_pages(PageFetcher(FetchPolicy(allow_private=True)), [url], cache=cache))
        )
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert web.fetches("shared.html") == 1
    answers = sorted(result[url][1] for result in results)
    assert answers == [False, True, True]  # one branch fetched it, the others took it from the cache
    assert all(result[url][0].ok for result in results)
