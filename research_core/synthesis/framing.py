"""Framing sentences: they announce a comparison or talk about the report itself ("X and Y differ
in how they handle locking", "The main question compares ...", "These findings are supported by
the documentation ...") without stating a fact a source could back. They carry no citation and
are not counted as claims; a long one that also states facts is checked as a claim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from research_core.text.support import stems
from research_core.text.terms import distinctive_terms

# a word that frames a comparison or the report
_FRAMING = re.compile(
    r"\b(?:differ(?:s|ences?)?|different (?:from|in|ways?|approach(?:es)?|mechanisms?|models?)|"
    r"compar(?:e[sd]?|ison|ing)|similar(?:ly|ities)?|"
    r"this (?:report|section|answer|overview)|the (?:following|sections? below|sub-answers?)|"
    r"(?:each|both) (?:has|have|offers?) (?:its|their) own|depends? on (?:your|the) (?:needs|use case|requirements)|"
    r"trade-?offs?)\b",
    re.IGNORECASE,
)
# a sentence about the question, the findings or the sources themselves, not about the subject
_ABOUT_REPORT = re.compile(
    r"^\W*(?:the|this|these|our) (?:main |original |user'?s |above |following |key )?"
    r"(?:question|findings?|research|report|sub-answers?)\b"
    r"(?!\s+(?:\w+\s+)?(?:indicate|show|suggest|state|say|confirm)s?\s+that)|"
    r"\b(?:supported|backed|confirmed) by the (?:provided )?(?:documentation|sources?|findings?|evidence)\b",
    re.IGNORECASE,
)
# a question: it opens on a question word and ends on a question mark ("?column?" in a query's output does not)
_QUESTION = re.compile(
    r"^\W*(?:what|how|which|why|when|where|who|whom|whose|is|are|does|do|did|can|could|should|will|would)\b"
    r"[^?？]*[?？]\s*$",
    re.IGNORECASE,
)
# a framing sentence is short: a long one with a framing word also states facts, and is checked as a claim
FRAMING_MAX_WORDS = 16


def is_framing(sentence: str, names: Iterable[str], question: str = "") -> bool:
    """A sentence that frames a comparison or the report and names nothing beyond the question's subjects:
    short, or of any length when every word of it is the `question`'s (it restates the question);
    or one about the report itself (`about_the_report`); or a question, which asserts nothing (a
    report that restates the user's question, "What are window functions, ...?", cited to two pages)."""
    if about_the_report(sentence) or _QUESTION.match(sentence):
        return True
    if not _FRAMING.search(sentence):
        return False
    if len(sentence.split()) > FRAMING_MAX_WORDS and not (question and stems(sentence) <= stems(question)):
        return False
    own = {n.lower() for n in names}
    return not [t for t in distinctive_terms(sentence) if t.lower() not in own]


def about_the_report(sentence: str) -> bool:
    """A sentence about the question, the findings or the sources themselves ("The main question
    compares ...", "These findings are supported by the documentation ..."): it states nothing a
    source could back, and a citation on it lends the page to a sentence the page never says."""
    return bool(_ABOUT_REPORT.search(sentence))
