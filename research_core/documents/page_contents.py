"""A page's own table of contents, which names every section and explains none.

A manual page often opens with a list of its sections ("12.3.1. Parsing Documents", "12.3.2.
Parsing Queries", "12.3.3. Ranking Search Results", ...). Kept in the first passage, those lines
make it the page's best match for any of its sections' topics: a search for ranking finds the
page's opening paragraph, not its ranking section. A block of text that repeats a heading the page
gives further on is such an entry, and is left out of the page's passages; the heading itself
stays where it heads its section.
"""

from __future__ import annotations


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


def without_contents(blocks: list[tuple[bool, str]]) -> list[tuple[bool, str]]:
    """`blocks` (is a heading, text) less the non-heading blocks whose text is a heading that
    comes later in the page. Every heading stays, and so does a block repeating an earlier one."""
    later: set[str] = set()
    keep: list[tuple[bool, str]] = []
    for is_heading, text in reversed(blocks):
        if is_heading:
            later.add(_key(text))
        elif _key(text) in later:
            continue
        keep.append((is_heading, text))
    return keep[::-1]
