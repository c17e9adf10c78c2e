"""Navigation pages: indexes, site maps, tables of contents, change logs and search pages.

Such a page names everything and explains nothing: a search for any topic finds it, and a cited
sentence drawn from it is supported by a link title at best. They are never evidence. A page is
navigation when its title says so, when its address is one of the usual names for such a page, or
when its text is mostly a list of short link-like lines with no sentence of prose among them. A
passage of such a list on a page whose backend reads further (the library) is not the page: the
page's best passage with prose is read instead (`searching.keep_relevant`).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import urlsplit

_TAIL = r"(?:\s*[-–—:|(].*)?\W*$"
_TITLE = re.compile(
    r"^\W*(?:"
    # "SQLite Site Map", "PostgreSQL 15.5 Documentation", "Release Notes"
    r"(?:[\w.]+\s+){0,2}(?:site\s*map|table of contents|change\s*logs?|release notes|"
    r"release history(?:\s+of\s+[\w.]+)?|(?:older\s+)?news|changes|"
    r"documentation(?: index| home| contents)?)"
    # "Index", "General Index", "Python Module Index" (not "CREATE INDEX": the word before must say so)
    r"|(?:(?:general|alphabetical|keyword|book|document|master|permuted|python module|module)\s+)?index"
    r"|contents|toc|changes|what['’]?s new\b.*|news|search(?: results| page)?|all pages"
    r")" + _TAIL,
    re.IGNORECASE,
)
# "E.1. Release 15.1", "SQLite Release 3.33.0 On 2020-08-14"
_RELEASE_TITLE = re.compile(r"^\W*(?:[A-Z]\.\d+\.\s+)?(?:[\w.]+\s+)?release \d+(?:\.\d+)*\b", re.IGNORECASE)
_FILE = re.compile(
    r"^(?:(?:gen|book|site|py-mod|mod)?index|genindex(?:-\w+)?|bookindex|sitemap|site-map|toc|contents|"
    r"changes|changelog|news|search|release(?:s|-notes|-\d[\w.-]*)?|whatsnew)$",
    re.IGNORECASE,
)
# file names that are also the names of functions and topics: SQLite's c3ref/changes.html is "Count The
# Number Of Rows Modified" (sqlite3_changes()), so these are navigation by name only when the page has no title
_NAMES_OF_THINGS = frozenset({"changes", "news", "search"})
# a passage of mostly short lines (link texts) is a list, not an explanation
LIST_LINE_WORDS = 6
LIST_SHARE = 0.7
MIN_LIST_LINES = 8
# one line of prose (a sentence this long) means the page explains something: code and tables have short lines too
PROSE_WORDS = 10


def _file_stem(url: str) -> str:
    path = urlsplit(url).path if "://" in url else url
    name = PurePosixPath(path).name
    return re.sub(r"(\.html?|\.php|\.aspx?|\.md|\.txt)(\.[a-z]{2})?$", "", name, flags=re.IGNORECASE)


def navigation_reason(title: str, url: str, text: str = "") -> str | None:
    """Why the page is navigation rather than evidence (see the module docstring), or None."""
    return page_navigation_reason(title, url) or list_reason(text)


def page_navigation_reason(title: str, url: str) -> str | None:
    """Why the page is navigation by its title or address alone, or None."""
    clean = " ".join(title.split())
    if clean and (_TITLE.match(clean) or _RELEASE_TITLE.match(clean)):
        return f"a navigation page ({clean[:60]!r})"
    stem = _file_stem(url)
    if stem and _FILE.match(stem) and not (clean and stem.lower() in _NAMES_OF_THINGS):
        return f"a navigation page ({stem})"
    return None


def list_reason(text: str) -> str | None:
    """Why a passage is a list of short lines rather than an explanation, or None. This is the shape
    of one passage, not of the page: a command's reference page opens with its synopsis (short
    lines of options) and explains them further down (`searching.keep_relevant` reads on)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    prose = [line for line in lines if len(line.split()) > PROSE_WORDS and line.endswith((".", ":"))]
    if len(lines) >= MIN_LIST_LINES and not prose:
        short = sum(1 for line in lines if len(line.split()) <= LIST_LINE_WORDS and not line.endswith("."))
        if short / len(lines) >= LIST_SHARE:
            return "a list of links, not an explanation"
    return None
