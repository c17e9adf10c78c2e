"""Quotes far in meaning from what the user asked are not findings.

The word rules of extraction let a quote in when it shares one topic word with the branch's
question; "check_postgres ... integrates with Nagios and MRTG for monitoring database health"
shares "database" with "How does PostgreSQL support window functions compared to other
databases?" (a branch question the model wrote), and the report then said PostgreSQL supports
window functions through Nagios. Against the user's question ("What are window functions, how does
PostgreSQL support them, and does SQLite support the same OVER clause?") it scores 0.05.

The rule: a quote is refused when its cosine (`text.embedding`, the products the questions name
left out of both sides by `text.names.without_names`; not the function, option or command asked
about, `text.names.is_asked_name`: "What does EXPLAIN ANALYZE show?" without its keywords is "What
does show?", far from every sentence about EXPLAIN; and not an acronym, which is the topic more
often than a system: "How do PostgreSQL and SQLite differ in their JSON support?" without "JSON"
scored 0.04 against SQLite's sentence on its json_extract() function) with the main question
is below `FAR_BAR`. A branch whose own question is far from the main one (below `OWN_TOPIC_BAR`:
a topic the user added) also counts its own question: a quote close to either is kept. Without
the model, or for a question not in English (the model reads English), nothing is refused.

The bar is set low on purpose: over the 314 findings of three recorded benchmark rounds, only the
Nagios quote scored below 0.2 against the main question (the closest others: a table row of
another directive, 0.20, and a numeric type's range, 0.26); every branch the model wrote was at
least 0.33 from its main question.
"""

from __future__ import annotations

import logging

from research_core.planning.question_shape import products
from research_core.text import embedding
from research_core.text.names import is_asked_name, without_names
from research_core.text.words import looks_english

logger = logging.getLogger(__name__)

FAR_BAR = 0.15
OWN_TOPIC_BAR = 0.3


def far_quotes(quotes: list[str], question: str, branch_question: str = "") -> set[int]:
    """The indexes of `quotes` far in meaning from what was asked (the rule above)."""
    if not quotes or not looks_english(question) or not embedding.available():
        return set()  # the bundled model reads English
    names = [n for n in products(f"{question} {branch_question}") if not is_asked_name(n)]
    asked = [question, branch_question] if branch_question.strip() else [question]
    try:
        vectors = embedding.embed([without_names(text, names) for text in [*asked, *quotes]])
    except Exception as exc:  # a broken model install must not lose findings
        logger.warning("meaning check of quotes skipped: %r", exc)
        return set()
    own_topic = len(asked) == 2 and float(vectors[1] @ vectors[0]) < OWN_TOPIC_BAR
    against = vectors[: len(asked)] if own_topic else vectors[:1]
    closeness = (vectors[len(asked) :] @ against.T).max(axis=1)
    return {i for i, score in enumerate(closeness) if score < FAR_BAR}
