"""Options a comparison question names in lower case ("the cluster module and worker_threads").

`question_shape.subjects` finds names by their spelling: capitals, digits, underscores, dots. In
"How do Node.js's cluster module and worker_threads differ", only `Node.js` and `worker_threads`
look like names, so a report sentence that gives a worker-thread fact to the cluster module, cited
to the cluster page, was checked as if it named one subject. A lower-case phrase that the question
coordinates with a name ("A and B", "A, B or C") in a question that compares is an option all the
same; its generic head noun ("module", "columns") is dropped, because reports write "the cluster
workers" or "**Cluster**", not always "the cluster module".
"""

from __future__ import annotations

import re

from research_core.planning.question_shape import subjects

# wording that makes the coordinated phrases options weighed against each other
_COMPARING = re.compile(r"\b(?:compar\w*|contrast\w*|differ\w*|vs\.?|versus|between|trade-?offs?)\b", re.I)
# a lower-case phrase of one or two words, a hyphenated word counting as one
_PHRASE = r"[a-z][a-z0-9-]*(?:\s+[a-z][a-z0-9-]*)?"
_START = r"(?<![\w'’-])"
_JOIN = r"(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+)"
# words that open a clause or a preposition phrase: "and when should", "and with mod_rewrite's"
_NOT_OPTION = frozenset(
    [
        "and",
        "or",
        "what",
        "how",
        "which",
        "why",
        "when",
        "where",
        "who",
        "whom",
        "whose",
        "is",
        "are",
        "does",
        "do",
        "can",
        "should",
        "the",
        "a",
        "an",
        "its",
        "their",
        "each",
        "both",
        "with",
        "in",
        "on",
        "of",
        "for",
        "from",
        "by",
        "to",
        "at",
        "as",
        "into",
        "than",
        "then",
        "also",
        "there",
        "this",
        "that",
        "these",
        "those",
        "it",
        "they",
    ]
)
# a phrase's generic head, which names the kind of thing the option is, not the option
_HEADS = frozenset(
    [
        "module",
        "modules",
        "library",
        "libraries",
        "package",
        "packages",
        "command",
        "commands",
        "function",
        "functions",
        "option",
        "options",
        "directive",
        "directives",
        "setting",
        "settings",
        "mode",
        "modes",
        "method",
        "methods",
        "api",
        "apis",
        "class",
        "classes",
        "feature",
        "features",
        "column",
        "columns",
        "type",
        "types",
        "extension",
        "extensions",
        "approach",
        "approaches",
        "mechanism",
        "mechanisms",
    ]
)


def compared_options(question: str) -> list[str]:
    """The lower-case phrases a comparison question coordinates with one of its names, each less
    its generic head noun, in order; [] when the question does not compare or coordinates none.

    Three shapes count: a phrase joined to a name ("cluster module and worker_threads"), a list of
    phrases whose head is a name ("prefork, worker and event MPMs"), and a list right after a name
    that ends the clause ("Git rebase and merge:"). In a list, every item must be an option: "each
    provide, and how are JSON values" is two clauses, not a list.
    """
    text = " ".join(question.split())
    if not _COMPARING.search(text):
        return []
    names = subjects(text)
    found: dict[str, None] = {}
    for name in names:
        escaped = re.escape(name)
        for match in re.finditer(rf"{_START}(?P<option>{_PHRASE}){_JOIN}(?:the\s+)?{escaped}(?!\w)", text):
            _add(found, [match.group("option")])
        for match in re.finditer(rf"(?<!\w){escaped}{_JOIN}(?:the\s+)?(?P<option>{_PHRASE})(?![\w-])", text):
            _add(found, [match.group("option")])
        for shape in (
            rf"{_START}(?P<items>{_PHRASE}(?:{_JOIN}{_PHRASE})+)\s+{escaped}(?!\w)",
            rf"(?<!\w){escaped}(?:'s|’s)?\s+(?P<items>{_PHRASE}(?:{_JOIN}{_PHRASE})+)(?=\s*(?:[,:;?.!]|$))",
        ):
            for match in re.finditer(shape, text):
                _add(found, re.split(_JOIN, match.group("items")))
    lowered = {n.lower() for n in names}
    return [o for o in found if o.lower() not in lowered]


def _option(phrase: str) -> str | None:
    """The phrase as an option (less "the" and its generic head), or None when it is not one."""
    words = phrase.split()
    if words and words[0] == "the":
        words = words[1:]
    if len(words) > 1 and words[-1] in _HEADS:
        words = words[:-1]
    if not words or any(w in _NOT_OPTION or w in _HEADS for w in words) or len(" ".join(words)) < 3:
        return None
    return " ".join(words)


def _add(found: dict[str, None], phrases: list[str]) -> None:
    """Add the phrases as options, all or none."""
    options = [_option(p) for p in phrases]
    if all(options):
        for option in options:
            found.setdefault(option, None)
