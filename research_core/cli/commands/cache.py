"""The page cache commands: how many pages it holds, and emptying it.

They work on the database alone: no Runner and no LLM.
"""

from __future__ import annotations

import argparse

from research_core.cli.errors import EXIT_USAGE
from research_core.sources.cache import PAGE_CACHE_MAX_AGE_S, PageCache
from research_core.storage.location import locate


def _pages(count: int) -> str:
    return f"{count} page{'s' if count != 1 else ''}"


def info(cache: PageCache, args: argparse.Namespace) -> int:
    """Print how many pages the cache holds (stale ones were removed when it was opened)."""
    days = PAGE_CACHE_MAX_AGE_S // 86400
    print(f"{_pages(cache.count())} in the page cache of {cache.location} (each kept {days} days)")
    return 0


def clear(cache: PageCache, args: argparse.Namespace) -> int:
    """Empty the page cache: later runs fetch every page again."""
    print(f"emptied the page cache: {_pages(cache.clear())} removed")
    return 0


SUBCOMMANDS = {"info": info, "clear": clear}


def cache(args: argparse.Namespace) -> int:
    """Run one cache subcommand on the command's database."""
    pages = PageCache(locate(args.db))
    subcommand = SUBCOMMANDS.get(args.cache_command)
    return subcommand(pages, args) if subcommand is not None else EXIT_USAGE
