"""Distinctive terms: the words of a statement that make it this statement and no other.

Shared words are not support: "SQLite ranks with ts_rank" shares most of its words with a page on
SQLite's full-text search that never says ts_rank. What a reader needs checked are the terms a
retelling cannot invent without being wrong: identifiers, option and function names, numbers,
acronyms and proper names. A statement may only use such terms when the quotes it cites contain
them.

A distinctive term is one of:
- text in backticks;
- a token with a digit, an underscore, an inner dot, inner capitals or a trailing "()";
- a command-line option ("--verbose", "-x");
- an acronym of two or more capitals ("WAL", "MVCC");
- a capitalised word that does not start the sentence (a name: "Python", "Apache").
"""

from __future__ import annotations

import re

from research_core.text.words import normalize

_MARKER = re.compile(r"\[\[src:[^\]]+\]\]|\[\d+(?:\s*,\s*\d+)*\]")
_BACKTICKED = re.compile(r"`([^`\n]{1,80})`")
# a number keeps a unit written onto it ("300s", "32K", "64KiB"): "32" alone would be a different claim
_TOKEN = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*|[A-Za-z_][\w.]*\w(?:\(\))?|\d[\d.,]*(?:%|[A-Za-z]+\b)?|[A-Za-z])")
# capitalised words that are ordinary English wherever they stand
_COMMON = frozenset(
    [
        "I",
        "A",
        "An",
        "The",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "Its",
        "In",
        "On",
        "At",
        "For",
        "With",
        "By",
        "From",
        "To",
        "Of",
        "And",
        "Or",
        "But",
        "If",
        "When",
        "While",
        "However",
        "Both",
        "Each",
        "Either",
        "Neither",
        "Unlike",
        "Like",
        "Also",
        "Note",
        "Yes",
        "No",
        "Not",
        "One",
        "Two",
        "Three",
        "First",
        "Second",
        "Third",
        "Also",
        "Overall",
        "Instead",
        "Whereas",
        "Although",
        "Because",
        "Since",
        "Then",
        "Thus",
        "Therefore",
        "Here",
        "There",
        "Such",
        "Some",
        "Many",
        "Most",
        "All",
        "Any",
        "Other",
        "Another",
        "Only",
        "Even",
        "Still",
        "Finally",
        "Additionally",
        "Furthermore",
        "Moreover",
        "Similarly",
        "Specifically",
        "Meanwhile",
        "Otherwise",
        "Unless",
        "Until",
        "After",
        "Before",
        "During",
        "Within",
        "Without",
        "Between",
        "Among",
    ]
)
# digits that count phrases rather than name anything ("one or two", list numbering) are not terms
_SMALL_NUMBER = re.compile(r"^[0-9]$")


def _is_identifier(token: str) -> bool:
    core = token[:-2] if token.endswith("()") else token
    return bool(
        token.endswith("()")
        or token.startswith("-")
        or re.search(r"\d", core)
        or "_" in core
        or re.search(r"\w\.\w", core)
        or re.search(r"[a-z][A-Z]", core)
        or (len(core) >= 2 and core.isupper() and core.isalpha())
    )


def backticked(text: str) -> set[str]:
    """The terms `text` writes as code (between backticks)."""
    return {m.strip() for m in _BACKTICKED.findall(text) if m.strip()}


def distinctive_terms(text: str) -> set[str]:
    """The distinctive terms of `text` (see the module docstring), in their written case."""
    bare = _MARKER.sub(" ", text)
    terms = {m.strip() for m in _BACKTICKED.findall(bare) if m.strip()}
    bare = _BACKTICKED.sub(" ", bare)
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n+|^\s*[-*+]\s+", bare):
        tokens = _TOKEN.findall(sentence)
        for i, token in enumerate(tokens):
            token = token.rstrip(".,")
            if not token or _SMALL_NUMBER.match(token):
                continue
            if _is_identifier(token) or (
                i > 0 and token[0].isupper() and token[1:].islower() and len(token) > 2 and token not in _COMMON
            ):
                terms.add(token)
    return terms


def _stem(word: str) -> str:
    """A crude stem for names: "Logging" and "log", "Pythonic" and "Python" meet on their first letters."""
    return word[: max(4, len(word) - 3)] if len(word) > 5 else word


def term_in(term: str, evidence: str) -> bool:
    """Whether `evidence` contains `term`: identifiers exactly (case aside), plain names by their stem."""
    wanted = term[:-2] if term.endswith("()") else term
    if _is_identifier(term) or " " in wanted or "`" in wanted:
        pattern = re.escape(wanted.lower())
        return bool(re.search(rf"(?<![\w]){pattern}(?![\w])", evidence.lower()))
    stem = _stem(normalize(wanted))
    return any(w.startswith(stem) for w in normalize(evidence).split())


def missing_terms(statement: str, evidence: str, ignore: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The distinctive terms of `statement` that `evidence` does not contain (`ignore`: terms checked elsewhere,
    compared case-insensitively)."""
    skip = {t.lower() for t in ignore}
    return sorted(t for t in distinctive_terms(statement) if t.lower() not in skip and not term_in(t, evidence))


def code_names(text: str) -> set[str]:
    """The distinctive terms of `text` that name code: functions, options, directives, modules
    ("fs.readFile()", "HostnameLookups", "mod_proxy", "journal_mode"), not numbers, versions or acronyms."""
    out = set()
    for term in distinctive_terms(text):
        core = term[:-2] if term.endswith("()") else term
        if not re.search(r"[A-Za-z]{2}", core) or re.match(r"^v?\d", core) or (core.isupper() and core.isalpha()):
            continue
        if (
            term.endswith("()")
            or "_" in core
            or re.search(r"[A-Za-z]\.[A-Za-z]", core)
            or re.search(r"[a-z][A-Z]", core)
            or " " in core
        ):
            out.add(term)
    return out
