"""One compared system is not a part of another.

A small model that read two systems' manuals side by side fuses them: "PostgreSQL supports window
functions by adding them to its SQLite database in release version 3.25.0" gives SQLite's release
to PostgreSQL by making SQLite PostgreSQL's own. Each cited page backs its half of the words, so
the one-subject rules pass it.

The rule: a sentence may not make a subject whose documentation is cited (`evidence.owners`: the
manual a page belongs to) the possession of another such subject, neither "A's B" nor "its B"
after A. Parts of one manual stay free to own each other ("mod_proxy's ProxyPass directive",
"Node.js's fs.readFile"), and a name must stand whole: "Python's sqlite3 module" names a module,
not SQLite.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from research_core.synthesis.evidence import Evidence, owners
from research_core.text.names import mentions

_POSSESSIVE = re.compile(r"(?:\bits|['’]s)\s+$", re.IGNORECASE)


def _whole(text: str, start: int, name: str) -> bool:
    """The name stands at `start` as it is spelled, not as a longer word ("sqlite3")."""
    end = start + len(name)
    return text[start:end].lower() == name and not (end < len(text) and (text[end].isalnum() or text[end] == "_"))


def owned_option(
    sentence: str, cited: Iterable[str], evidence: Mapping[str, Evidence], names: Iterable[str]
) -> str | None:
    """Why `sentence` makes one documented subject another's ("its SQLite database" after PostgreSQL), or None."""
    names = list(names)
    documented = {owner for sid in cited if sid in evidence for owner in owners(evidence[sid], names)}
    if len(documented) < 2:
        return None
    found = [(start, name) for start, name in mentions(sentence, names) if name in documented]
    for i, (start, name) in enumerate(found):
        if not _whole(sentence, start, name) or not _POSSESSIVE.search(sentence[:start]):
            continue
        holders = [other for _, other in found[:i] if other != name]
        if holders:
            return f"makes {name} a part of {holders[-1]}: each is documented on its own"
    return None
