"""Names in text: which of a question's subjects (systems, libraries, options) a text mentions."""

from __future__ import annotations

import re
from collections.abc import Iterable


def _name_pattern(name: str) -> re.Pattern[str]:
    # a name matches as a word, digits and a possessive may follow: "SQLite" finds "sqlite3" and
    # "SQLite's", never "React" in "reactive"
    return re.compile(rf"(?<![\w]){re.escape(name.lower())}(?![^\W\d_])", re.IGNORECASE)


def named_in(text: str, names: Iterable[str]) -> list[str]:
    """The names (lower-cased) that `text` mentions."""
    return [n.lower() for n in names if _name_pattern(n).search(text)]


def mentions(text: str, names: Iterable[str]) -> list[tuple[int, str]]:
    """Where `text` mentions each of the names: (offset, lower-cased name), in the order they stand."""
    return sorted((m.start(), n.lower()) for n in names for m in _name_pattern(n).finditer(text))


def without_names(text: str, names: Iterable[str]) -> str:
    """`text` with the names (and their possessives) taken out, so that similarity is about the topic."""
    for name in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?:'s)?(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())
