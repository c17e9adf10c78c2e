"""Names in text: which of a question's subjects (systems, libraries, options) a text mentions."""

from __future__ import annotations

import re
from collections.abc import Iterable


def _name_pattern(name: str) -> re.Pattern[str]:
    # a name matches as a word, digits, a plural and a possessive may follow: "SQLite" finds "sqlite3"
    # and "SQLite's", "cluster" finds "Clusters", never "React" in "reactive"; an underscore, a
    # hyphen and a space are one joint: "worker_threads" finds "Worker Threads"; a joined name in the
    # plural finds its singular too: "worker_threads" finds "a worker thread"
    escaped = re.escape(name.lower())
    spelled = re.sub(r"_|\\ |\\-", lambda _: r"[_\s-]", escaped)
    if spelled != escaped and re.search(r"[^s]s$", spelled):
        spelled += "?"
    return re.compile(rf"(?<![\w]){spelled}(?:e?s)?(?![^\W\d_])", re.IGNORECASE)


# a name that is the thing asked about, not the system it belongs to: a function or option written
# as code ("functools.lru_cache", "worker_threads") or a command keyword in capitals ("EXPLAIN",
# "VACUUM"); acronyms of four letters or fewer ("JSON", "HTTP") and product names ("PostgreSQL") are not
_CODE_NAME = re.compile(r"[._]|\(\)|^--")
MIN_KEYWORD_LETTERS = 5


def is_asked_name(name: str) -> bool:
    """Whether `name` names the function, option or command a question asks about (see above)."""
    return bool(_CODE_NAME.search(name)) or (name.isupper() and len(name) >= MIN_KEYWORD_LETTERS)


def spells_out(text: str, name: str) -> bool:
    """Whether `text` has each word of the name's last part joined by underscores, as words in any
    order: "An LRU (least recently used) cache works best ..." speaks of `functools.lru_cache`."""
    last = re.split(r"[.]", name.strip("()-"))[-1]
    words = [w for w in last.lower().split("_") if w]
    return len(words) >= 2 and all(re.search(rf"(?<![\w]){re.escape(w)}(?![^\W\d_])", text, re.I) for w in words)


def names_asked(text: str, names: Iterable[str]) -> list[str]:
    """The asked-about names (`is_asked_name`) `text` mentions, or spells out (`spells_out`); a
    keyword in capitals only as written ("EXPLAIN", not "explain")."""
    found = []
    for name in (n for n in names if is_asked_name(n)):
        if _CODE_NAME.search(name):
            if named_in(text, [name]) or spells_out(text, name):
                found.append(name)
        elif re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text):
            found.append(name)
    return found


def named_in(text: str, names: Iterable[str]) -> list[str]:
    """The names (lower-cased) that `text` mentions."""
    return [n.lower() for n in names if _name_pattern(n).search(text)]


def named_as_word(text: str, names: Iterable[str]) -> list[str]:
    """The names (lower-cased) `text` writes as words of their own: "Python's sqlite3 module" names
    Python, not SQLite, whose name there is part of the module's (`named_in` finds "sqlite3" for
    SQLite, as a manual's folder is named)."""
    return [n.lower() for n in names if re.search(rf"(?<![\w.-]){re.escape(n)}(?![\w-])", text, re.IGNORECASE)]


def mentions(text: str, names: Iterable[str]) -> list[tuple[int, str]]:
    """Where `text` mentions each of the names: (offset, lower-cased name), in the order they stand."""
    return sorted((m.start(), n.lower()) for n in names for m in _name_pattern(n).finditer(text))


def without_names(text: str, names: Iterable[str]) -> str:
    """`text` with the names (and their possessives) taken out, so that similarity is about the topic."""
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?:'s)?(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


# the names listed before the one a pattern ends at: "child_process or " in "Unlike child_process or
# cluster"; a list ends in "or"/"and", so "Unlike child_process or cluster, worker_threads" sets only
# child_process and cluster against worker_threads
LISTED_BEFORE = r"(?:(?:[\w.'’-]+,\s+)*[\w.'’-]+,?\s+(?:or|and|nor)\s+)?$"
_CONTRASTED = re.compile(
    rf"\b(?:unlike|than|versus|vs\.?|instead\s+of|in\s+contrast\s+to|compared\s+(?:to|with))\s+(?:the\s+)?{LISTED_BEFORE}",
    re.IGNORECASE,
)


def contrasted(text: str, names: Iterable[str]) -> set[str]:
    """The names (lower-cased) `text` sets against what it speaks of ("Unlike child_process or
    cluster, worker_threads can share memory"): what it says is not said of them."""
    return {name for start, name in mentions(text, names) if _CONTRASTED.search(text[:start])}
