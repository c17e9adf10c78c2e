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
# The words a sentence that only frames may use besides the question's own and its subjects' names.
# "Identity columns are similar to SERIAL but can have a larger range of values" has a framing word
# and no term beyond the question's names, but "range" and "values" state a fact a source must back.
_FRAMING_WORDS = stems(
    "however also both each either neither another other these those they them their there some several "
    "many various two three one main key major notable notably important significant significantly crucial "
    "primary general generally overall summary conclusion following follows below above point points aspect "
    "aspects way ways manner approach approaches mechanism mechanisms method methods implementation "
    "implementations implement implements implemented detail details feature features functionality usage "
    "use uses used using work works handle handles handling support supports supported provide provides offer "
    "offers differ differs difference differences different differently compare compares compared comparing "
    "comparison similar similarly similarity similarities unlike lie lies depend depends depending trade-off "
    "trade-offs tradeoff tradeoffs own has have may can respect terms regard regarding question asks ask "
    "overview report research findings sub-answers answer answers information explain explains focus "
    "focusing include includes including demonstrate demonstrates show shows showing specific specifics "
    "choose choosing right needs requirements understanding comprehensive interact influence system systems "
    "option options tool tools distinct but it as while based you your"
)


def is_framing(sentence: str, names: Iterable[str], question: str = "") -> bool:
    """A sentence that frames a comparison or the report and names nothing beyond the question's subjects,
    nor any word beyond the question's and the words of framing (`_FRAMING_WORDS`): short, or of any
    length when every word of it is the `question`'s (it restates the question);
    or one about the report itself (`about_the_report`); or a question, which asserts nothing (a
    report that restates the user's question, "What are window functions, ...?", cited to two pages)."""
    if about_the_report(sentence) or _QUESTION.match(sentence):
        return True
    if not _FRAMING.search(sentence):
        return False
    if len(sentence.split()) > FRAMING_MAX_WORDS and not (question and stems(sentence) <= stems(question)):
        return False
    own = {n.lower() for n in names}
    if [t for t in distinctive_terms(sentence) if t.lower() not in own]:
        return False
    # without the question there is nothing to tell its topic words from a fact's
    return not question or stems(sentence) <= stems(question) | stems(" ".join(names)) | _FRAMING_WORDS


def about_the_report(sentence: str) -> bool:
    """A sentence about the question, the findings or the sources themselves ("The main question
    compares ...", "These findings are supported by the documentation ..."): it states nothing a
    source could back, and a citation on it lends the page to a sentence the page never says."""
    return bool(_ABOUT_REPORT.search(sentence))
