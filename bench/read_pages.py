"""Page reading against the local web: pages read per second, and the page cache's hit rate on re-runs.

`.venv/bin/python -m bench.read_pages [--root DIR] [--batch 8] [--rounds 3]`

1. Reading: every HTML page of the local web (the recorded fixtures by default, or any folder of
   HTML pages with `--root`) is read the way a branch reads its sources: `read_sources` in batches
   of `--batch` sources (a branch keeps at most 8), fetched concurrently over HTTP on 127.0.0.1,
   extracted with trafilatura and ranked into passages. Cold (empty page cache) then warm (the
   same database): pages per second and the cache's hit rate on the second pass.
2. Whole runs: a scripted-LLM hierarchical run through SearXNG-format search of the local web,
   then a branch re-run and a second run of the same question on the same database; the local
   web counts every page request, so the re-runs' cache hit rate is measured where it matters.

Figures only; nothing fails on timing. The machine's load average is printed first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from research_core.configuration import LLMSettings, build_run_config
from research_core.runs.runner import Runner
from research_core.schemas import Source
from research_core.services import Services
from research_core.sources.cache import PageCache
from research_core.sources.labels import reasons_text
from research_core.sources.reader import ReadStats, read_sources
from tests.fakes.llm_server import ScriptedLLM, serve
from tests.fakes.local_web import FIXTURE_PAGES, LocalWeb, serve_local_web

QUESTION = "Compare SQLite and PostgreSQL write concurrency for a small web app"


def page_paths(root: Path) -> list[str]:
    """The HTML pages under `root`, relative, sorted."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix.lower() in (".html", ".htm"))


def read_all(web: LocalWeb, paths: list[str], cache: PageCache, batch: int) -> tuple[float, ReadStats]:
    """Read every page in batches of `batch` sources; (seconds, summed stats)."""
    config = build_run_config("general", fetch_private_addresses=True)
    # no LLM needed
    services = Services(llm=None, backends=[], config=config, page_cache=cache)  # type: ignore[arg-type]
    total = ReadStats()
    started = time.perf_counter()
    for i in range(0, len(paths), batch):
        sources = [
            Source.make(web.url(p), p, "teaser", 1.0, "searxng", sub_question_id="sq_001") for p in paths[i : i + batch]
        ]
        _, _, stats = read_sources(services, QUESTION, sources, config, max_chars=600)
        total.read += stats.read
        total.failed += stats.failed
        total.from_cache += stats.from_cache
        total.fetched += stats.fetched
        for reason, n in stats.reasons.items():
            total.reasons[reason] = total.reasons.get(reason, 0) + n
    return time.perf_counter() - started, total


def reading(root: Path, batch: int, rounds: int) -> None:
    """Section 1: pages per second cold and warm, and the warm pass's cache hit rate."""
    paths = page_paths(root)
    print(f"## 1. Reading {len(paths)} pages of {root} in batches of {batch}\n")
    print("| round | pass | pages | read | snippet kept | fetched | from cache | seconds | pages/s |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    cold_rates: list[float] = []
    for n in range(1, rounds + 1):
        with tempfile.TemporaryDirectory() as tmp, serve_local_web(LocalWeb(root)) as web:
            cache = PageCache(Path(tmp) / "bench.db")
            for label in ("cold", "warm"):
                seconds, stats = read_all(web, paths, cache, batch)
                rate = len(paths) / seconds
                if label == "cold":
                    cold_rates.append(rate)
                print(
                    f"| {n} | {label} | {len(paths)} | {stats.read} | {stats.failed} | {stats.fetched} | "
                    f"{stats.from_cache} | {seconds:.3f} | {rate:.1f} |"
                )
                if label == "cold" and stats.reasons:
                    print(f"|  | snippets kept: {reasons_text(stats.reasons)} | | | | | | | |")
            hits = sum(web.hits[p] for p in paths)
            print(f"|  | requests at the server | {hits} (one per page) | | | | | | |")
    print(f"\nCold pages/s, median of {rounds}: {statistics.median(cold_rates):.1f}\n")


def whole_runs() -> None:
    """Section 2: a run, a branch re-run and a second run; page requests at the server for each."""
    print("## 2. Whole runs (scripted LLM, SearXNG search of the local web, pages read)\n")
    with (
        tempfile.TemporaryDirectory() as tmp,
        serve(ScriptedLLM()) as (url, _),
        serve_local_web() as web,
    ):
        llm = LLMSettings(provider="openai", base_url=url, model="gpt-4o-mini", timeout_s=30, max_retries=0)
        runner = Runner(Path(tmp) / "bench.db", llm_settings=llm, api_key="sk-bench")
        config = build_run_config(
            "general",
            search_backends=["searxng"],
            searxng_url=web.base_url,
            fetch_private_addresses=True,
            auto_approve=True,
            mode="hierarchical",
            parallel=2,
        )

        def pages_requested() -> int:
            return sum(n for path, n in web.hits.items() if path != "search")

        print("| run | wall s | page reads | from the page cache | requests at the server | cache hit rate |")
        print("|---|---:|---:|---:|---:|---:|")
        steps = (
            ("first run", lambda: runner.start(QUESTION, config)),
            ("branch re-run (sq_001)", lambda: runner.rerun_branch(first_id, "sq_001")),
            ("second run, same question", lambda: runner.start(QUESTION, config)),
        )
        first_id = ""
        for label, step in steps:
            before = pages_requested()
            started = time.perf_counter()
            snap = step()
            wall = time.perf_counter() - started
            first_id = first_id or snap.run_id
            log = runner.result(snap.run_id).log  # a re-run's log holds its own steps only
            reads = [e for e in log if e.kind in ("passages", "page_not_read")]
            cached = sum(1 for e in reads if e.message.endswith("(from the page cache)"))
            fetched = pages_requested() - before
            rate = f"{cached / len(reads):.0%}" if reads else "–"
            print(f"| {label} ({snap.status}) | {wall:.2f} | {len(reads)} | {cached} | {fetched} | {rate} |")
    print()


def main() -> None:
    """Print both sections."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=FIXTURE_PAGES, help="folder of HTML pages to serve")
    parser.add_argument("--batch", type=int, default=8, help="sources read together, as one branch iteration")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs\n")
    reading(args.root, args.batch, args.rounds)
    whole_runs()


if __name__ == "__main__":
    main()
