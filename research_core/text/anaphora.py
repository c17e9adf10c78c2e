"""Sentences that lean on the one before: "In Apache 1.3 this setting defaults to Off."

Such a sentence names its subject only through the sentence before it ("Prior to Apache 1.3,
HostnameLookups defaulted to On."). Copied alone into a finding, or retold under another heading,
the fact lands on whatever the reader last read about: the HostnameLookups default became
KeepAliveTimeout's in a report. So a quote that leans back takes its antecedent with it, and a
report sentence that leans back must have, in the text just before it, the subject its quote names.
"""

from __future__ import annotations

import re

_NOUNS = (
    r"setting|directive|option|flag|function|method|module|parameter|argument|value|call|feature|mode|"
    r"command|variable|property|event|class|type|approach|operation|statement|clause|keyword|field|"
    r"attribute|object|api|interface|header|extension|mechanism|level|behaviou?r|"
    # the situation or result the sentence before described: "mod_expires may be used to control this
    # effect" (of a rewritten page cached past its time window), "For this case, a single httpd ..."
    r"effect|case|situation|limit"
)
# "It ...", "Optionally, it ...": a pronoun as the sentence's subject
_OPENER = re.compile(r"^\W*(?:\w+,\s+)?(?:it|its|they|their|this|these|those|such)\b", re.IGNORECASE)
_DEMONSTRATIVE = re.compile(rf"\b(?:this|these|those|such an?|such)\s+(?:{_NOUNS})s?\b", re.IGNORECASE)
# a property of the entry being described, not named: "The default is 0.1 (10% of table size)." under
# autovacuum_analyze_scale_factor; and what was shown above: "The query above returns three rows ..."
_UNNAMED = re.compile(
    r"^\W*the\s+(?:default|initial)(?:\s+value)?\s+(?:is|was)\b|\b(?:query|example|command|statement)\s+above\b",
    re.IGNORECASE,
)


def leans_back(sentence: str) -> bool:
    """The sentence opens with a pronoun ("It", "This", "They"), names its subject as "this setting",
    "such a function", or gives an unnamed entry's default ("The default is 0.1") or what is "above":
    its subject is in the text before it."""
    return bool(_OPENER.match(sentence) or _DEMONSTRATIVE.search(sentence) or _UNNAMED.search(sentence))
