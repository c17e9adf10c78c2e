"""A retold quote keeps what it is about.

"Constraints on foreign tables (such as CHECK or NOT NULL clauses) are not enforced by the core
PostgreSQL system" was retold as "Foreign key constraints are not enforced by the core PostgreSQL
system": the predicate is copied word for word, and the subject in front of it was swapped for the
question's own term. Six of its seven words are in the quote, so no overlap measure notices; the
one word that is not ("key") turns a remark about foreign tables into a false statement about
foreign keys. The rule: when a clause repeats a run of at least `MIN_SHARED_RUN` words of the
quoted sentence it retells (`text.support.retold_sentence`), the words it puts before that run may
not bring in, after a word of the quoted subject, a word of the question that the quoted sentence
does not have at all: that is the question's term grafted onto another thing. ("The cluster module
runs ..." for "Clusters of Node.js processes can be used to run ..." adds "module" before any word
of the quoted subject: a name for the same thing, not a new one.)
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from research_core.text.support import retold_sentence
from research_core.text.words import content_words

MIN_SHARED_RUN = 5
# a clause's head of more words than this is a sentence of its own before the copied run, not its subject
MAX_HEAD_WORDS = 6
# words the quoted sentence has before the copied run for it to have a subject a retelling can change
MIN_QUOTED_SUBJECT = 2
_WORD = re.compile(r"[\w'-]+")


def changed_subject(clause: str, sentences: list[str], topic: set[str], names: list[str] = ()) -> str | None:
    """Why `clause` is refused, or None: it copies a run of its quote's words but puts in front of
    them, beside words of the quoted subject, a `topic` word its quote lacks ("changes what its
    quote is about: 'Foreign key constraints' for 'Constraints on foreign tables ...'"). Names of
    the question's subjects are left aside."""
    best = retold_sentence(clause, sentences)
    if best is None:
        return None
    mine, theirs = _WORD.findall(clause), _WORD.findall(best)
    run = SequenceMatcher(None, [w.lower() for w in mine], [w.lower() for w in theirs], autojunk=False)
    start, other, length = run.find_longest_match(0, len(mine), 0, len(theirs))
    if length < MIN_SHARED_RUN or start == 0 or start > MAX_HEAD_WORDS or other < MIN_QUOTED_SUBJECT:
        return None  # no subject in front of the copied words: "Use the commit() method" has none to change
    named = {w for n in names for w in content_words(n.lower())}
    quoted_head = " ".join(theirs[:other])
    quoted_words = content_words(quoted_head) - named
    lacking = content_words(best) | named
    kept_before = False  # a word of the quoted subject stands before the added one: "Foreign [key] constraints"
    added = []
    for word in mine[:start]:
        stems_of = content_words(word)
        if stems_of & quoted_words:
            kept_before = True
        elif kept_before and stems_of & topic and not stems_of & lacking:
            added.append(word)
    if not added:
        return None
    return f"changes what its quote is about: '{' '.join(mine[:start])}' for '{quoted_head}'"
