"""A sentence about both subjects that names neither: "Both systems support auto-vacuum mode",
"In both systems, ...", "Both support simple text search".

Such a sentence says its fact of each subject of the question, so `claim_check` holds it to a
source about each (rule 1), as if it named them. With no noun after it, a sentence-initial "Both"
followed by a verb speaks of the question's subjects too: round X's "Both support simple text
search ... [1]" was cited to one PostgreSQL page and gave SQLite PostgreSQL's text-search features.
"Both" before anything else ("Both the parser and the planner", "Both FTS3 and FTS4", "In both
cases") names its own pair, and is left to the other rules.
"""

from __future__ import annotations

import re

# "both/the two/either/neither" before a noun for the question's subjects
_BOTH_NOUN = re.compile(
    r"\b(?:both|the two|either|neither)\s+(?:systems?|databases?|engines?|products?|servers?|libraries|modules)\b",
    re.IGNORECASE,
)
# a sentence opening with "Both" and a lower-case word ("Both support", "Both of them"); which of
# those words are verbs is decided in `speaks_of_both`
_BOTH_FIRST = re.compile(r"^\W*Both\s+(of\s+(?:them|these|those)\b|[a-z]+\b)")
# words after "Both" that begin a noun phrase naming its own pair, not a verb
_DETERMINERS = frozenset({"the", "these", "those", "their", "its", "our", "your", "his", "her"})


def speaks_of_both(sentence: str) -> bool:
    """Whether the sentence says its fact of both subjects without naming them: "both systems",
    "the two databases", or a sentence-initial "Both" followed by a verb ("Both support", "Both
    are", "Both of them"). A plural noun after "Both" ("Both functions") is not a verb: a word
    ending in one "s" is read as a noun, as a verb after a plural subject takes no "s"."""
    if _BOTH_NOUN.search(sentence):
        return True
    first = _BOTH_FIRST.match(sentence)
    if first is None:
        return False
    word = first.group(1)
    if word.split()[0] == "of":
        return True
    return word not in _DETERMINERS and (not word.endswith("s") or word.endswith("ss"))
