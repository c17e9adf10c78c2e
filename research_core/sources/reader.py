"""read_sources: replace each kept web result's snippet with the passages of its page that answer the branch.

For every web source a branch keeps, the page is taken from the page cache or fetched (safely,
see `fetch`), its main text extracted, split into passages and ranked against the branch's
question; the best passages, within the caller's character budget, become the source's
`snippet`, and the source is marked `read="page"`. Anything that goes wrong (refused address,
timeout, HTTP error, too big, not HTML or PDF, no text, no passage about the question) leaves
the search snippet in place, marked `read="snippet"` with the reason in `read_note`. Library
sources pass through untouched.

Fetches run concurrently (a few daemon threads, at most `MAX_PER_HOST` at a time per host) under
one overall deadline that every fetch also keeps, so a slow site delays a branch by at most
`READ_DEADLINE_S` and nothing a fetch started outlives it by more than a read timeout; a stopping
process (`research_core.net.transfer.stop_transfers`) ends the wait and the transfers at once.
The page cache answers only with pages fetched under the run's address rule.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from research_core.configuration import RunConfig
from research_core.net.transfer import transfers_stopped
from research_core.schemas import LogEntry, Source, SubQuestion
from research_core.services import Services
from research_core.sources.cache import CachedPage, PageCache
from research_core.sources.extract import ExtractError, extract_text
from research_core.sources.fetch import PAGE_DEADLINE_S, FetchError, FetchPolicy, PageFetcher
from research_core.sources.labels import reasons_text
from research_core.sources.passages import Passage, joined, select_passages
from research_core.sources.workers import run_until

logger = logging.getLogger(__name__)

MAX_FETCH_WORKERS = 4
MAX_PER_HOST = 2
READ_DEADLINE_S = 30.0
DEFAULT_MAX_CHARS = 600
MAX_PASSAGES = 3
PREVIEW_CHARS = 160
NODE = "research_step"


class ReadStats(BaseModel):
    """What reading one branch iteration's sources did."""

    read: int = Field(default=0, description="Web sources whose page passages replaced the snippet")
    failed: int = Field(default=0, description="Web sources left with their snippet")
    from_cache: int = Field(default=0, description="Pages (read or failed) answered by the page cache")
    fetched: int = Field(default=0, description="Pages requested over the network")
    reasons: dict[str, int] = Field(default_factory=dict, description="Why pages were not read, by reason")
    seconds: float = 0.0

    def branch_update(self, branch: SubQuestion) -> dict[str, Any]:
        """The branch's running page counts with this iteration's added."""
        reasons = Counter(branch.pages_not_read)
        reasons.update(self.reasons)
        return {
            "pages_read": branch.pages_read + self.read,
            "pages_failed": branch.pages_failed + self.failed,
            "pages_not_read": dict(reasons),
        }


class _HostGate:
    """At most `limit` fetches at a time to one host."""

    def __init__(self, limit: int):
        self.limit = limit
        self._gates: dict[str, threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()

    def __call__(self, url: str) -> threading.BoundedSemaphore:
        host = (urlsplit(url).hostname or "").lower()
        with self._lock:
            return self._gates.setdefault(host, threading.BoundedSemaphore(self.limit))


def is_readable(source: Source) -> bool:
    """A web result whose page can be fetched (not a library document, an http(s) URL)."""
    if source.backend == "library":
        return False
    parts = urlsplit(source.url)
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def fetch_page(fetcher: PageFetcher, url: str, until: float | None = None) -> tuple[CachedPage, bool]:
    """Fetch and extract one page by `until` (monotonic). Returns (the page or its failure, whether it may be stored).

    A failure that may pass (a timeout, a 5xx) is not to be stored; it is remembered in memory for a while.
    """
    try:
        page = fetcher.fetch(url, until=until)
        text = extract_text(page)
    except FetchError as exc:
        failure = CachedPage(url=url, ok=False, reason=exc.reason, note=exc.user_message, private=exc.private)
        return failure, exc.permanent
    except ExtractError as exc:
        return CachedPage(url=url, ok=False, reason=exc.reason, note=exc.user_message, private=page.private), True
    except Exception as exc:  # a bug on one page must not lose the branch
        logger.exception("reading %s failed", url)
        return CachedPage(url=url, ok=False, reason="error", note=f"{type(exc).__name__}"), False
    return CachedPage(
        url=url,
        ok=True,
        final_url=page.final_url,
        title=text.title,
        text=text.text,
        kind=page.kind,
        private=page.private,
    ), True


def _cached(cache: PageCache, url: str, allow_private: bool) -> CachedPage | None:
    try:
        return cache.get(url, allow_private=allow_private)
    except Exception:  # the cache is an optimisation: a locked or broken database must not fail reading
        logger.warning("page cache lookup failed for %s", url, exc_info=True)
        return None


def _store(cache: PageCache, page: CachedPage, keep: bool) -> None:
    try:
        if keep:
            cache.put(page)
        elif page.reason != "stopped":
            cache.put_transient(page)
    except Exception:
        logger.warning("could not cache the page %s", page.url, exc_info=True)


def _read_once(cache: PageCache, fetcher: PageFetcher, gate: _HostGate, url: str, until: float) -> tuple:
    """One page: fetched by this caller, or (when another branch is fetching it) taken from the cache after it.

    Returns (page, whether the cache answered).
    """
    allow_private = fetcher.policy.allow_private
    for _ in range(2):
        busy = cache.claim(url)
        if busy is None:
            try:
                with gate(url):
                    page, keep = fetch_page(fetcher, url, until)
                _store(cache, page, keep)
                return page, False
            finally:
                cache.release(url)
        busy.wait(max(0.0, until - time.monotonic()))
        hit = _cached(cache, url, allow_private)
        if hit is not None:
            return hit, True
    return CachedPage(url=url, ok=False, reason="timeout", note="another branch's fetch of it did not finish"), False


def fetch_pages(
    fetcher: PageFetcher, urls: list[str], deadline_s: float = READ_DEADLINE_S, cache: PageCache | None = None
) -> dict[str, tuple[CachedPage, bool]]:
    """Fetch pages concurrently (per-host limit) within one deadline; late ones fail as timeouts.

    Every fetch keeps the deadline itself, and the wait ends early when the process stops. Pages
    worth keeping go into `cache` as they arrive. Returns url -> (page, whether the cache answered
    it: another branch fetched it meanwhile).
    """
    if not urls:
        return {}
    cache = cache if cache is not None else PageCache(None)
    gate = _HostGate(MAX_PER_HOST)
    until = time.monotonic() + deadline_s
    jobs = [lambda url=url: _read_once(cache, fetcher, gate, url, until) for url in urls]
    results = run_until(jobs, MAX_FETCH_WORKERS, until, transfers_stopped, name="arbor-fetch")
    late = "not read: the process is stopping" if transfers_stopped() else f"not read within {deadline_s:g} s"
    return {
        url: result if result is not None else (CachedPage(url=url, ok=False, reason="timeout", note=late), False)
        for url, result in zip(urls, results, strict=True)
    }


def load_pages(
    cache: PageCache, fetcher: PageFetcher, urls: list[str], deadline_s: float = READ_DEADLINE_S
) -> tuple[dict[str, CachedPage], set[str]]:
    """Each URL's page from the cache (if fetched under the fetcher's address rule), else fetched within `deadline_s`.

    Returns (pages by URL, the URLs the cache answered).
    """
    pages: dict[str, CachedPage] = {}
    for url in urls:
        hit = _cached(cache, url, fetcher.policy.allow_private)
        if hit is not None:
            pages[url] = hit
    cached = set(pages)
    missing = [u for u in urls if u not in cached]
    for url, (page, from_cache) in fetch_pages(fetcher, missing, deadline_s, cache).items():
        pages[url] = page
        if from_cache:
            cached.add(url)
    return pages, cached


def _preview(passages: list[Passage]) -> str:
    return " | ".join(f"#{p.index + 1}: {' '.join(p.text.split())[:PREVIEW_CHARS]}" for p in passages)


def _kept_snippet(source: Source, reason: str, why: str, origin: str) -> tuple[Source, LogEntry, str]:
    entry = LogEntry(
        node=NODE,
        branch=source.sub_question_id,
        kind="page_not_read",
        message=f"Kept the snippet of {source.url}: {why}{origin}",
    )
    return source.model_copy(update={"read": "snippet", "read_note": f"snippet only: {why}"}), entry, reason


def apply_page(
    source: Source, page: CachedPage, question: str, max_chars: int, cached: bool
) -> tuple[Source, LogEntry, str | None]:
    """The source with its page's best passages (or its snippet and why). Returns (source, log entry, reason)."""
    origin = " (from the page cache)" if cached else ""
    if not page.ok:
        return _kept_snippet(source, page.reason or "error", page.note, origin)
    passages = select_passages(question, page.text, max_chars, MAX_PASSAGES)
    if not passages:
        return _kept_snippet(source, "no_match", "no passage of the page is about the question", origin)
    numbers = ", ".join(f"#{p.index + 1}" for p in passages)
    chosen = f"passage{'s' if len(passages) > 1 else ''} {numbers}"
    update: dict[str, Any] = {"snippet": joined(passages), "read": "page", "read_note": f"page read: {chosen}"}
    if page.title and (not source.title or source.title == source.url):
        update["title"] = page.title
    entry = LogEntry(
        node=NODE,
        branch=source.sub_question_id,
        kind="passages",
        message=f"Read {source.url}: chose {chosen}{origin}",
        reasoning=_preview(passages),
    )
    return source.model_copy(update=update), entry, None


def read_sources(
    services: Services,
    question: str,
    sources: list[Source],
    config: RunConfig,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    fetcher: PageFetcher | None = None,
) -> tuple[list[Source], list[dict], ReadStats]:
    """Give each web source the passages of its page that best answer `question`, within `max_chars`.

    Returns (the sources in the same order, log entries as dicts, ReadStats). Library sources and
    everything when `config.read_pages` is off pass through unchanged; nothing raises for a bad
    page, and the whole call takes at most about `READ_DEADLINE_S`.
    """
    readable = [s for s in sources if is_readable(s)]
    if not readable:
        return list(sources), [], ReadStats()
    if not config.read_pages:
        off = {"read": "snippet", "read_note": "snippet only: reading pages is off"}
        return [s.model_copy(update=off) if is_readable(s) else s for s in sources], [], ReadStats()
    started = time.monotonic()
    deadline_s = config.read_deadline_s
    policy = FetchPolicy(allow_private=config.fetch_private_addresses, deadline_s=min(PAGE_DEADLINE_S, deadline_s))
    fetcher = fetcher or PageFetcher(policy)
    cache = services.page_cache or PageCache(None)
    urls = list(dict.fromkeys(s.url for s in readable))
    pages, cached = load_pages(cache, fetcher, urls, deadline_s)
    stats = ReadStats(from_cache=len(cached), fetched=len(urls) - len(cached))
    reasons: Counter[str] = Counter()
    log: list[dict] = []
    out: list[Source] = []
    for source in sources:
        if not is_readable(source):
            out.append(source)
            continue
        updated, entry, reason = apply_page(source, pages[source.url], question, max_chars, source.url in cached)
        out.append(updated)
        log.append(entry.model_dump())
        if reason is None:
            stats.read += 1
        else:
            stats.failed += 1
            reasons[reason] += 1
    stats.reasons = dict(reasons)
    stats.seconds = round(time.monotonic() - started, 3)
    branch = readable[0].sub_question_id
    log.append(_summary(branch, stats).model_dump())
    services.emit({"type": "pages_read", "branch": branch, "read": stats.read, "failed": stats.failed})
    return out, log, stats


def _summary(branch: str | None, stats: ReadStats) -> LogEntry:
    message = f"Pages read: {stats.read} of {stats.read + stats.failed}"
    if stats.from_cache:
        message += f" ({stats.from_cache} from the page cache)"
    if stats.failed:
        message += f"; {stats.failed} kept their snippet ({reasons_text(stats.reasons)})"
    return LogEntry(node=NODE, branch=branch, kind="pages", message=message + f" in {stats.seconds:.1f} s")
