"""Quoted evidence: the model points at numbered sentences; the engine copies them verbatim.

A small model asked to state a fact "in its own words" moves facts between systems, drops
qualifiers and reverses negations. Asked instead to point at sentences, it can only be wrong about
which sentences matter, never about what they say. So the extraction prompt shows each passage as
numbered sentences, the model answers with numbers, and a finding's quote is those sentences copied
from the passage by code; its location is the source's address with a text fragment
(`#:~:text=start,end`) that opens the page at the quote.

When a model writes a finding's text instead (an older prompt, another endpoint), the quote is the
run of the cited passage's sentences that best supports that text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote as url_quote

from research_core.schemas import Source
from research_core.text.anaphora import leans_back
from research_core.text.breadcrumbs import is_breadcrumb
from research_core.text.entry_terms import entry_term
from research_core.text.sentence_ends import SENTENCE_END
from research_core.text.terms import code_names
from research_core.text.words import content_words

MAX_SENTENCE_CHARS = 400
MAX_QUOTE_SENTENCES = 3
MAX_QUOTE_CHARS = 700
MAX_ANTECEDENTS = 3  # sentences a leaning quote may reach back for what it is about
MIN_QUOTE_WORDS = 3
FRAGMENT_WORDS = 5
# a "sentence" of this many words, this share of them capitalised, is a menu or a list of titles
MENU_MIN_WORDS = 8
MENU_CAPITALS = 0.75
# after a short lead-in and a colon, a long run of mostly capitalised words is a list of headings
MENU_TAIL_WORDS = 12
MENU_TAIL_CAPITALS = 0.6
_SECTION_NUMBER = re.compile(r"\b\d+\.\d+(?:\.\d+)*\.?(?!\d)")
MENU_MIN_LOWER = 3
# items set apart by bars: a menu or a list of languages
MENU_BARS = 2
# a manual's page header: "Controlling Text Search Prev Up Chapter 12 Home Next"
_NAV_WORDS = re.compile(r"\b(?:Prev|Next|Up|Home)\b")


@dataclass(frozen=True)
class NumberedSentence:
    """One sentence of a shown passage: its number in the prompt, its source and its text."""

    number: int
    source: int  # index into the shown sources
    text: str


# a definition table's label on a line of its own: "Default:" above "KeepAliveTimeout 5"
_FIELD_LABEL = re.compile(r"^\w[\w -]{0,30}:$")
# the field `_with_labels` makes of it: "Default: KeepAliveTimeout 5"
FIELD = re.compile(r"^(?P<label>\w[\w -]{0,30}): (?P<value>.+)$")


def _with_labels(pieces: list[str]) -> list[str]:
    """The pieces with each field label joined to the value on the line after it, and each entry's term
    to the description under it. A manual's definition table ("Syntax:", "KeepAliveTimeout num[ms]",
    "Default:", "KeepAliveTimeout 5") becomes "Default: KeepAliveTimeout 5", a statement that can be
    quoted, where each line alone says nothing; and "Specifies a fraction of the table size to add to
    autovacuum_vacuum_threshold" is shown as "autovacuum_vacuum_scale_factor (floating point)
    Specifies a fraction ...": without its term, a small model gave the description to the one
    parameter it names, autovacuum_vacuum_threshold. A sentence that leads into a list with a colon is
    joined to the list's short items (`_list_item`)."""
    out: list[str] = []
    term: str | None = None
    listing = False
    for piece in pieces:
        if out and _FIELD_LABEL.match(out[-1]) and len(out[-1].split()) <= 3 and not _FIELD_LABEL.match(piece):
            out[-1] = f"{out[-1]} {piece}"
        elif term and not entry_term(piece) and not _FIELD_LABEL.match(piece) and len(piece.split()) >= MIN_QUOTE_WORDS:
            out[-1] = f"{term} {piece}"
        elif (listing or (out and _leads_into_list(out[-1]))) and _list_item(piece, out[-1]):
            out[-1], listing = f"{out[-1]} {piece}", True
            continue
        else:
            out.append(piece)
        listing = False
        term = entry_term(piece) if out[-1] == piece else None
    return out


# a list's item: a short line that does not end a sentence ("julianday(time-value, modifier, ...)",
# "text in a subset of the ISO-8601 format,")
MAX_LIST_ITEM_WORDS = 12
_ITEM_END = re.compile(r"[.!?:。！？]$")


def _leads_into_list(piece: str) -> bool:
    """A sentence ending in a colon ("SQLite supports six date and time functions as follows:"); not a
    field's label ("Default:")."""
    return piece.endswith(":") and len(piece.split()) > 3 and not FIELD.match(piece)


def _list_item(piece: str, joined: str) -> bool:
    """Whether `piece` is one more item of the list `joined` is gathering (`_with_labels`): short, not a
    sentence, and room for it in one shown sentence. Joined, "SQLite supports six date and time functions
    as follows:" names date(), julianday() and strftime(); alone, the lead-in promised a list it did not
    show, and each item was too short to quote."""
    return (
        len(piece.split()) <= MAX_LIST_ITEM_WORDS
        and not _ITEM_END.search(piece)
        and not _FIELD_LABEL.match(piece)
        and not (_HEADING.match(piece) and not code_names(piece))  # the next section's "Compatibility"
        and len(joined) + 1 + len(piece) <= MAX_SENTENCE_CHARS
    )


def split_sentences(passage: str) -> list[str]:
    """The passage's sentences, whitespace collapsed, field labels joined to their values
    (`_with_labels`); a very long one is cut at a word boundary."""
    out = []
    for piece in _with_labels([text for p in SENTENCE_END.split(passage) if (text := " ".join(p.split()))]):
        if len(piece) > MAX_SENTENCE_CHARS:
            piece = piece[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"
        out.append(piece)
    return out


def looks_like_menu(sentence: str, capitals: float = MENU_CAPITALS) -> bool:
    """A run of capitalised link texts ("Home Menu About Documentation Download …") rather than a sentence;
    `capitals`: the share of capitalised words that makes one (`MENU_CAPITALS`)."""
    words = [w for w in sentence.split() if any(c.isalpha() for c in w)]
    # ¶ is the anchor a manual puts after each heading: a run of them is a table of contents
    if "►" in sentence or "»" in sentence or "¶" in sentence or len(_NAV_WORDS.findall(sentence)) >= 2:
        return True
    if sentence.count(" | ") >= MENU_BARS:
        return True  # "Available Languages: en | fr | ko | tr", "Modules | Directives | FAQ | Glossary"
    head, colon, tail = sentence.partition(": ")
    if (
        colon
        and len(head.split()) < MENU_MIN_WORDS
        and len(tail.split()) >= MENU_TAIL_WORDS
        and looks_like_menu(tail, MENU_TAIL_CAPITALS)
    ):
        return True  # "A typical implementation is below: Reverse Proxy Simple reverse proxying Clusters …"
    numbers = _SECTION_NUMBER.findall(sentence)
    if (len(numbers) >= 2 or _SECTION_NUMBER.match(sentence)) and len(
        re.findall(r"\b[a-z]{3,}\b", sentence)
    ) < MENU_MIN_LOWER:
        # "Parsing Queries 12.3.3. Ranking Search Results 12.3.4.": a table of contents; one version
        # number inside a sentence is not ("Prior to Apache 1.3, HostnameLookups defaulted to On.")
        return True
    if len(words) < MENU_MIN_WORDS:
        return False
    return sum(1 for w in words if w[0].isupper()) / len(words) >= capitals


# a sentence that only sends the reader elsewhere: "For a full treatment, please see [berenson95]."
_POINTER = re.compile(
    r"^(?:see(?: also)?|please see|for (?:a full treatment|more (?:details|information)|details)\b[^.]*\bsee|"
    r"refer to|cf\.)\b|\b(?:are|is) (?:described|listed|shown) in (?:table|section|chapter|figure) [\w.]+\.?$",
    re.IGNORECASE,
)
# a title-case line without a full stop: a heading ("Aggregate Window Functions", "Introduction to WAL")
_HEADING = re.compile(r"^(?:[\d.]+\s+)?(?:[A-Z►][\w'-]*)(?:\s+(?:[A-Z][\w'-]*|a|an|the|of|to|and|or|in|on|for|with))*$")
# the aside in brackets that ends a heading or an index entry
_LAST_ASIDE = re.compile(r"\s*\([^()]*\)$")
# a heading that ends in its own anchor link: "How it works#", "Directive ¶" (a sentence ends in a stop)
_ANCHORED_HEADING = re.compile(r"(?:\S#|\s?¶)$")
# a line of code, a C declaration or a version note: "int sqlite3_blob_close(sqlite3_blob *);", "New in version 3.2."
_NOT_PROSE = re.compile(
    r"\)\s*;\s*$|^\s*(?:(?:const|unsigned|static|struct|typedef)\s+)*(?:int|void|char|double|sqlite3\w*)\s*\**\s*\w+\s*\(|"
    r"^(?:New|Changed|Deprecated) in version [\d.]+\.?$|^(?:Added|Deprecated) in:? v?[\d.]+\.?$"
)
# what a line of a program has and a sentence has not: statement ends, braces, arrows, declarations,
# SQL's line comments ("nu NUMERIC, -- numeric affinity by rule 5")
_CODE_MARK = re.compile(r";\s|[{}]|=>|\b(?:const|let|var|import|function)\s+[\w{]|\brequire\(|\s--\s")
# an interactive session's prompt: ">>> con = sqlite3.connect(":memory:")" is a program, whatever follows it
_PROMPT = re.compile(r"(?:^|\s)>>>\s")
CODE_MARKS = 3
# a short line that ends in no stop is a page's title, a heading, a label or a table cell: "Apache HTTP
# Server Version 2.4", "Apache MPM event", "How the server selects the proper name-based virtual host",
# "This page last modified on 2022-08-09", "Hostname and port that the server uses to identify itself"
# (which directive's, the cell beside it said)
MAX_UNSTOPPED_WORDS = 12
_STOPPED = re.compile(r"[.!?:;)\"'”’。！？]$")
# an API entry's header: "Class: Worker# Added in: v10.5.0 Extends: <EventEmitter>"
_API_HEADER = re.compile(r"\b(?:Added in|Extends|Stability|Deprecated since|Compatibility):\s")


def states_nothing(sentence: str) -> bool:
    """A heading (title case, no full stop, or ending in its anchor link "#"), a short line ending in no
    stop (a page's title, a label: "Apache MPM event"), a menu, a fragment
    under `MIN_QUOTE_WORDS` words, a pointer to another place ("See server.setTimeout()", "... are
    described in Table 13.1"), a line of code, a version note or an API entry's header: none of them
    is a fact to quote."""
    if sentence.startswith("#") or len(sentence.split()) < MIN_QUOTE_WORDS or looks_like_menu(sentence):
        return True
    if _HEADING.match(sentence) or _ANCHORED_HEADING.search(sentence) or _NOT_PROSE.search(sentence):
        return True
    if len(sentence.split()) <= MAX_UNSTOPPED_WORDS and not _STOPPED.search(sentence) and not FIELD.match(sentence):
        return True  # a title or heading line; a definition table's "Default: KeepAliveTimeout 5" is a field
    if len(sentence.split()) <= MAX_UNSTOPPED_WORDS and _HEADING.match(_LAST_ASIDE.sub("", sentence)):
        return True  # a heading with an aside: "WITH Queries (Common Table Expressions)", "Regular Expression (Regex)"
    if is_breadcrumb(sentence):
        return True  # "Apache > HTTP Server > Documentation > Modules": where the page sits, not a fact
    if len(_CODE_MARK.findall(sentence)) >= CODE_MARKS or _PROMPT.search(sentence):
        return True  # a program ("const fs = require('node:fs'); ... { signal }", ">>> import sqlite3"), not a sentence
    if _POINTER.search(sentence):
        return True
    headers = _API_HEADER.findall(sentence)
    return bool(headers) and len(re.findall(r"\b[a-z]{3,}\b", _API_HEADER.sub(" ", sentence))) < MENU_MIN_LOWER


def statements_of(passage: str) -> str:
    """The passage's sentences that state something (`states_nothing`), one per line: what a prompt
    that shows only a few hundred characters of it should choose from. A page's menu ("Choose any
    three. Introduction to Window Functions 2.") shares the question's words too, and won the window."""
    return "\n".join(s for s in split_sentences(passage) if not states_nothing(s))


def number_sentences(passages: list[str]) -> list[NumberedSentence]:
    """Every sentence of every passage that states something (`states_nothing`), numbered from 1
    across the passages in order."""
    out: list[NumberedSentence] = []
    for index, passage in enumerate(passages):
        for sentence in split_sentences(passage):
            if states_nothing(sentence):
                continue
            out.append(NumberedSentence(len(out) + 1, index, sentence))
    return out


def listing(sources: list[Source], passages: list[str], sentences: list[NumberedSentence]) -> str:
    """The prompt's sources: each title and address, then its sentences as "(n) text" lines."""
    blocks = []
    for index, source in enumerate(sources):
        lines = [f"({s.number}) {s.text}" for s in sentences if s.source == index]
        if lines:
            blocks.append(f"Source {index + 1}: {source.title}\n{source.url}\n" + "\n".join(lines))
    return "\n\n".join(blocks)


def without_trailing_lead_ins(run: list[NumberedSentence]) -> list[NumberedSentence]:
    """The run less the sentences at its end that end in a colon ("The syntax of a window function
    call is one of the following:"): each leads into a list, a table or code the prompt never numbers,
    so quoted alone it promises what the quote does not hold. Empty when the run is only lead-ins."""
    end = len(run)
    while end and run[end - 1].text.rstrip().endswith(":"):
        end -= 1
    return run[:end]


def runs_of(
    numbers: list[int], sentences: list[NumberedSentence], pages: list[str] | None = None
) -> list[list[NumberedSentence]]:
    """The picked sentences grouped into runs of neighbours from one source, each at most
    `MAX_QUOTE_SENTENCES` long (one more when the first leans on its antecedent: `with_antecedents`),
    less the lead-ins at a run's end (`without_trailing_lead_ins`); unknown numbers are ignored."""
    by_number = {s.number: s for s in sentences}
    picked = sorted({n for n in numbers if n in by_number})
    runs: list[list[NumberedSentence]] = []
    for n in picked:
        sentence = by_number[n]
        last = runs[-1][-1] if runs else None
        if (
            last is not None
            and last.source == sentence.source
            and sentence.number == last.number + 1
            and len(runs[-1]) < MAX_QUOTE_SENTENCES
        ):
            runs[-1].append(sentence)
        else:
            runs.append([sentence])
    stated = [kept for run in runs if (kept := without_trailing_lead_ins(run))]
    return with_antecedents(stated, sentences, pages)


def with_antecedents(
    runs: list[list[NumberedSentence]], sentences: list[NumberedSentence], pages: list[str] | None = None
) -> list[list[NumberedSentence]]:
    """Each run whose first sentence leans on the one before (`text.anaphora`: "In Apache 1.3 this
    setting defaults to Off.") starts one sentence earlier, so the quote names what it is about
    (when the quote still fits `MAX_QUOTE_CHARS`), and earlier again while that sentence leans back
    too, up to `MAX_ANTECEDENTS`: "This parameter can only be set at server start" follows "The
    default is three", which follows the entry's "autovacuum_max_workers (integer) Specifies ...".
    The sentence before is the one shown before it, or, when the prompt showed none, the one before it
    in its source's whole passage (`pages`, one per source, as `statements_of` gives it: the prompt
    shows a few hundred characters of each)."""
    by_number = {s.number: s for s in sentences}
    out = []
    for run in runs:
        for _ in range(MAX_ANTECEDENTS):
            first = run[0]
            if not leans_back(first.text):
                break
            before = by_number.get(first.number - 1)
            if (before is None or before.source != first.source) and pages is not None and first.source < len(pages):
                before = _sentence_before(first, pages[first.source])
            if before is None or before.source != first.source or not _fits([before, *run]):
                break
            run = [before, *run]
        out.append(run)
    return out


def _fits(run: list[NumberedSentence]) -> bool:
    """Whether the run's quote holds all of its sentences (`quote_text` clips at `MAX_QUOTE_CHARS`)."""
    return len(quote_text(run)) == len(" ".join(s.text for s in run))


def _sentence_before(sentence: NumberedSentence, page: str) -> NumberedSentence | None:
    """The statement before `sentence` in its source's statements (`statements_of`), or None."""
    lines = page.splitlines()
    if sentence.text in lines[1:]:
        return NumberedSentence(0, sentence.source, lines[lines.index(sentence.text) - 1])
    return None


def quote_text(run: list[NumberedSentence]) -> str:
    """The run's sentences as one quote, clipped at `MAX_QUOTE_CHARS`."""
    text = " ".join(s.text for s in run)
    return text if len(text) <= MAX_QUOTE_CHARS else text[:MAX_QUOTE_CHARS].rsplit(" ", 1)[0] + " …"


def best_run(text: str, sentences: list[NumberedSentence], source: int) -> list[NumberedSentence]:
    """The run of up to `MAX_QUOTE_SENTENCES` neighbouring sentences of `source` sharing most words with `text`."""
    own = [s for s in sentences if s.source == source]
    wanted = content_words(text)
    best: list[NumberedSentence] = []
    best_score = 0
    for start in range(len(own)):
        for length in range(1, MAX_QUOTE_SENTENCES + 1):
            run = own[start : start + length]
            if len(run) < length:
                break
            score = len(wanted & content_words(" ".join(s.text for s in run)))
            # a longer run must add words to win
            if score > best_score:
                best, best_score = run, score
    return best


def location(url: str, quote: str) -> str:
    """The source's address with a text fragment that finds `quote` on the page (`#:~:text=start,end`;
    after the address's own fragment when it has one: `report.pdf#page=12:~:text=…`)."""
    words = quote.rstrip(" …").split()
    if not words:
        return url

    def enc(part: list[str]) -> str:
        return url_quote(" ".join(part), safe="")

    # the directive follows the address's own fragment, so a file's page ("#page=12") stays in it
    base = url.split(":~:", 1)[0]
    base += "" if "#" in base else "#"
    if len(words) <= 2 * FRAGMENT_WORDS:
        return f"{base}:~:text={enc(words)}"
    return f"{base}:~:text={enc(words[:FRAGMENT_WORDS])},{enc(words[-FRAGMENT_WORDS:])}"
