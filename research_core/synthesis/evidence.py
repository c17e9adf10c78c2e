"""What a cited sentence is checked against: each source's evidence (its title with what findings
quoted from it, or its passage when nothing was), the subjects it is about, and whose manual it is.

A quote that names an option makes its page a source about that option; a page's folder or site
says whose documentation it is, so a fact a page states of its own subject is not given to another
subject the page mentions (`says_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from research_core.planning.compared_options import compared_options
from research_core.planning.question_shape import subjects
from research_core.text.names import contrasted, mentions, named_in
from research_core.text.sentence_ends import SENTENCE_END
from research_core.text.support import support_share


@dataclass(frozen=True)
class Evidence:
    """What one source offers a cited sentence: its title and quotes (or passage), and its subjects."""

    text: str
    subjects: frozenset[str]
    units: tuple[str, ...] = ()  # each quote (or each passage sentence): what one place on the page says
    title: str = ""
    quoted: bool = False  # the units are findings' quotes (checked at extraction), not passage sentences
    address: str = ""  # the source's URL: a manual's folder or a site's name says whose documentation it is


def owners(source: Evidence, names: Iterable[str]) -> list[str]:
    """The subjects whose documentation the page is: the site part of a title that names two subjects
    ("... for SQLite databases — Python 3.11 documentation"), else the subjects the folder or site
    of its address names (`/usr/share/doc/sqlite3/`, `https://www.sqlite.org/`). The page's own file
    name does not count: `mod_proxy.html` and `worker_threads.html` are parts of one manual."""
    return page_owners(source.title, source.address, names)


def page_owners(title: str, address: str, names: Iterable[str]) -> list[str]:
    """`owners` of the page with this title and address."""
    names = list(names)
    parts = _TITLE_PARTS.split(title)
    if len(parts) > 1 and len(named_in(title, names)) >= 2 and (site := named_in(parts[-1], names)):
        return site
    return named_in(address.split("#", 1)[0].rsplit("/", 1)[0], names)


def says_of(source: Evidence, claim: str, name: str, names: Iterable[str]) -> bool:
    """Whether what `source` quotes for `claim` can be given to `name`: the source is about `name`,
    and when the page is another subject's documentation (`owners`), the quoted sentence that holds
    most of the claim names `name` itself. Python's sqlite3 page's `commit()` is Python's, not
    SQLite's, and SQLite's window-function page, which names PostgreSQL once, does not say what
    "PostgreSQL's window functions" are, whatever a retelling calls them, nor that "PostgreSQL
    supports window functions by first adding support to SQLite". And whatever the page,
    when the claim names subjects and that quoted sentence names others and none of the claim's, it
    says the fact of another one: "the ProxyPass directive is a better choice" is not the [P] flag's.
    A subject the quote sets against another (`names.contrasted`) is not one it speaks of: "Unlike
    child_process or cluster, worker_threads can share memory" says nothing the cluster does."""
    if name not in source.subjects:
        return False
    if not source.quoted:
        return True
    claimed = set(named_in(claim, names)) - contrasted(claim, names)
    best = max(sentences_of(source.units), key=lambda sentence: support_share(claim, sentence))
    said_of = set(named_in(best, names)) - contrasted(best, names)
    if claimed and said_of and not said_of & claimed:
        return False  # the quote says it of another subject: "the ProxyPass directive is a better choice"
    site = owners(source, names)
    if not site or name in site:
        return True
    spoken = mentions(claim, names)
    if spoken and spoken[0][1] in site:
        return True  # the claim gives the fact to the manual's own subject first ("Python's sqlite3 module ...")
    return name in said_of


# "Title — Site", "Title | Site", "Title - Site": the last part names the manual a page belongs to
_TITLE_PARTS = re.compile(r"\s+[—–|-]\s+")


def source_subjects(title: str, url: str, text: str, names: Iterable[str], quoted: str = "") -> frozenset[str]:
    """The names a source is about: those in its title or address and those its findings quote
    (`quoted`: a quote that names an option states something about it), else those in its text."""
    names = list(names)
    own = named_in(f"{title} {url}", names) + named_in(quoted, names)
    return frozenset(own or named_in(text, names))


def build_evidence(
    sources: Mapping[str, Mapping], quotes: Mapping[str, list[str]], names: Iterable[str]
) -> dict[str, Evidence]:
    """Source id -> its evidence: the title with the findings' quotes from it, or its passage if none."""
    names = list(names)
    out = {}
    for sid, s in sources.items():
        title, snippet, url = str(s.get("title") or ""), str(s.get("snippet") or ""), str(s.get("url") or "")
        own = [q for q in quotes.get(sid) or [] if q.strip()]
        quoted = " ".join(own)
        units = tuple(own) if own else tuple(sentences_of([snippet]))
        out[sid] = Evidence(
            f"{title} {quoted or snippet}",
            source_subjects(title, url, snippet, names, quoted),
            units,
            title,
            bool(own),
            url,
        )
    return out


def sentences_of(units: Iterable[str]) -> list[str]:
    """The sentences of quotes or passages, in order: what one quoted sentence says is checked against."""
    return [p for unit in units for p in SENTENCE_END.split(unit) if p.strip()]


def question_subjects(*questions: str) -> tuple[str, ...]:
    """The subjects the questions name (`planning.question_shape.subjects`), with the options a
    comparison names in lower case (`planning.compared_options`), each once."""
    found: dict[str, None] = {}
    for question in questions:
        for name in subjects(question or "") + compared_options(question or ""):
            if len(name) > 1:
                found.setdefault(name, None)
    return tuple(found)


def finding_quotes(findings: Iterable[Mapping]) -> dict[str, list[str]]:
    """Source id -> the quotes findings took from it (a finding without a quote counts by its text)."""
    out: dict[str, list[str]] = {}
    for f in findings:
        for sid in f.get("source_ids") or []:
            out.setdefault(sid, []).append(str(f.get("quote") or f.get("text") or ""))
    return out
